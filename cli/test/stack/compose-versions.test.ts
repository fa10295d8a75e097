import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { STACK_VERSIONS } from '../../src/stack/versions';

/** docker-compose.yml runs the Kafka and registry the local stack and the tests run: one version of each. */
test('docker-compose.yml runs the Kafka and Apicurio versions the local stack and the tests run', () => {
  const compose = parse(readFileSync(path.resolve(__dirname, '..', '..', '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { image?: string }>;
  };
  const images = Object.values(compose.services).flatMap((s) => (s.image ? [s.image] : []));
  expect(images).toContain(`apache/kafka:${STACK_VERSIONS.kafka}`);
  expect(images).toContain(`apicurio/apicurio-registry:${STACK_VERSIONS.apicurio}`);
});
