import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import avro from 'avsc';

/**
 * Where the `.avsc` files live: SCHEMAS_DIR, else the repository's schemas/ folder
 * (packages/kafka/src/avro or packages/kafka/dist/avro → ../../../../schemas; the Docker image keeps that layout).
 */
export function defaultSchemasDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SCHEMAS_DIR ?? path.resolve(__dirname, '..', '..', '..', '..', 'schemas');
}

export interface SchemaFile {
  /** File name, e.g. partner-event.avsc. */
  file: string;
  /**
   * The text registered in the registry: the file's JSON re-serialised without whitespace.
   * Deterministic, so re-registering the same file gives byte-identical text and the same
   * id (Apicurio shares ids across subjects only for byte-identical text).
   */
  canonicalText: string;
  /** The parsed schema, for reading records with this code's (reader) schema. */
  type: avro.Type;
}

/** Reads and parses one schema file. Throws with the file named when it is not valid Avro. */
export function readSchemaFile(dir: string, file: string): SchemaFile {
  const text = readFileSync(path.join(dir, file), 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
  const canonicalText = JSON.stringify(json);
  return { file, canonicalText, type: avro.Type.forSchema(json as avro.Schema) };
}

/** Every `.avsc` file in `dir`, sorted by name. */
export function listSchemaFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.avsc'))
    .sort();
}
