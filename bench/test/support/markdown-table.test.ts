import { markdownTable } from '../../src/support/markdown-table';

describe('markdownTable', () => {
  it('pads every column to its widest cell, with a separator row after the header', () => {
    expect(
      markdownTable(
        ['rate', 'p99'],
        [
          ['20/s', '12.5 ms'],
          ['1,000/s', '9.0 ms'],
        ],
      ),
    ).toBe(['| rate    | p99     |', '| ------- | ------- |', '| 20/s    | 12.5 ms |', '| 1,000/s | 9.0 ms  |'].join('\n'));
  });

  it('keeps separators at least three dashes wide, as Markdown needs', () => {
    expect(markdownTable(['a'], [['1']]).split('\n')[1]).toBe('| --- |');
  });
});
