import os from 'node:os';
import path from 'node:path';
import type { DocumentFetcherConfig } from '../../config';
import type { DocumentStorage } from './document-storage';
import { LocalDirectoryStorage } from './local-directory-storage';
import { S3Storage } from './s3-storage';

/** The store DOCUMENT_STORAGE names, with its settings. */
export function storageFromConfig(config: DocumentFetcherConfig): DocumentStorage {
  if (config.DOCUMENT_STORAGE === 'local') return new LocalDirectoryStorage(config.DOCUMENT_STORAGE_DIR);
  return new S3Storage({
    bucket: config.DOCUMENT_S3_BUCKET,
    prefix: config.DOCUMENT_S3_PREFIX,
    region: config.DOCUMENT_S3_REGION,
    forcePathStyle: config.DOCUMENT_S3_FORCE_PATH_STYLE,
    ...(config.DOCUMENT_S3_ENDPOINT ? { endpoint: config.DOCUMENT_S3_ENDPOINT } : {}),
    spoolDir: config.DOCUMENT_SPOOL_DIR ?? path.join(os.tmpdir(), 'hookstream-document-spool'),
  });
}
