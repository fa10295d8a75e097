import { envNumber, envNumberList } from '../../src/support/bench-run';

/** The benches' settings from the environment: a bad value ends the bench naming the variable. */
describe('envNumber', () => {
  const name = 'BENCH_TEST_SETTING';
  let exit: jest.SpyInstance;
  let error: jest.SpyInstance;

  beforeEach(() => {
    exit = jest.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${String(code)}`);
    });
    error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => {
    delete process.env[name];
    jest.restoreAllMocks();
  });

  it('takes the fallback when the variable is unset or blank', () => {
    expect(envNumber(name, 42)).toBe(42);
    process.env[name] = '  ';
    expect(envNumber(name, 42)).toBe(42);
  });

  it('reads a number', () => {
    process.env[name] = '250';
    expect(envNumber(name, 1000)).toBe(250);
    process.env[name] = '0';
    expect(envNumber(name, 30, 0)).toBe(0);
  });

  it.each([
    ['abc', 'above 0', undefined],
    ['0', 'above 0', undefined],
    ['-1', 'of at least 0', 0],
    ['Infinity', 'above 0', undefined],
    ['4', 'of at least 5', 5],
  ])('refuses %j with exit code 2 and a message naming the variable', (raw, expected, min) => {
    process.env[name] = raw;
    expect(() => envNumber(name, 1, min)).toThrow('exit 2');
    expect(exit).toHaveBeenCalledWith(2);
    expect(error).toHaveBeenCalledWith(`${name} must be a number ${expected}, got ${JSON.stringify(raw)}`);
  });
});

/** A list setting (BENCH_RATES): every entry a number above 0, or the bench ends naming the variable. */
describe('envNumberList', () => {
  const name = 'BENCH_TEST_LIST';
  let exit: jest.SpyInstance;
  let error: jest.SpyInstance;

  beforeEach(() => {
    exit = jest.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${String(code)}`);
    });
    error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => {
    delete process.env[name];
    jest.restoreAllMocks();
  });

  it('takes the fallback when the variable is unset or blank', () => {
    expect(envNumberList(name, [1000])).toEqual([1000]);
    process.env[name] = ' ';
    expect(envNumberList(name, [1000])).toEqual([1000]);
  });

  it('reads the numbers in their order, spaces around them allowed', () => {
    process.env[name] = '20, 200,1000,2.5';
    expect(envNumberList(name, [1000])).toEqual([20, 200, 1000, 2.5]);
    process.env[name] = '200';
    expect(envNumberList(name, [1000])).toEqual([200]);
  });

  it.each(['20,,200', '20,abc', '0,200', '-5', '200,', 'Infinity'])(
    'refuses %j with exit code 2 and a message naming the variable',
    (raw) => {
      process.env[name] = raw;
      expect(() => envNumberList(name, [1])).toThrow('exit 2');
      expect(exit).toHaveBeenCalledWith(2);
      expect(error).toHaveBeenCalledWith(`${name} must be a comma-separated list of numbers above 0, got ${JSON.stringify(raw)}`);
    },
  );
});
