/* Global setup of the `integration` project: the rendered chart's test runs helm, the tracing test Jaeger (build-tools.ts). */
import { buildTools } from './build-tools';

export default function integrationTools(): Promise<void> {
  return buildTools(['helm', 'kubernetes-validate', 'jaeger']);
}
