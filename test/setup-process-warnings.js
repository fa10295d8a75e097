// kafkajs triggers a harmless TimeoutNegativeWarning on Node 24 (a negative timer delay, clamped by Node); keep
// it out of the test output, and let every other warning through.
const original = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'TimeoutNegativeWarning') for (const listener of original) listener(warning);
});
