describe('runtime', () => {
  test('runs on a supported Node (22 or 24 LTS, or newer), never the end-of-life Node 20', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(22);
  });
});
