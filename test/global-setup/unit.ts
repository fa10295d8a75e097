/* Global setup of the `unit` project: the chart's tests run helm and kubernetes-validate (build-tools.ts). */
import { buildTools } from './build-tools';

export default function unitTools(): Promise<void> {
  return buildTools(['helm', 'kubernetes-validate']);
}
