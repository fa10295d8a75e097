/*
 * The S3-compatible store (AWS S3, MinIO, S3Proxy …) through @aws-sdk/client-s3. An object is
 * `<prefix><2 hex>/<sha256>` in the bucket. The body is uploaded from the spool file (streamed:
 * one PUT, or a multipart upload for large bodies through @aws-sdk/lib-storage); an object
 * appears in S3 only once its upload completes, so a kill leaves no half object under a key
 * (an unfinished multipart upload is invisible; a bucket lifecycle rule aborts it).
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { HeadBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { SpooledDocument, StoredDocument } from '../../domain/document';
import { contentKey, type DocumentStorage } from './document-storage';

export interface S3StorageOptions {
  bucket: string;
  /** Put before every key, e.g. `documents/`. */
  prefix: string;
  region: string;
  /** A non-AWS endpoint (MinIO, S3Proxy); default AWS's. */
  endpoint?: string;
  /** Path-style URLs (`endpoint/bucket/key`), as most S3-compatible servers want. */
  forcePathStyle: boolean;
  /** Where bodies are spooled before upload. */
  spoolDir: string;
}

export class S3Storage implements DocumentStorage {
  readonly kind = 's3';
  readonly spoolDir: string;
  private readonly client: S3Client;

  /** Credentials come from the environment, as the AWS SDK reads them (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, a profile, a role). */
  constructor(private readonly options: S3StorageOptions) {
    this.spoolDir = options.spoolDir;
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      // Checksums only where S3 requires them: S3-compatible servers do not all take the SDK's
      // default trailing CRC checksums (aws-chunked uploads).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async store(document: SpooledDocument): Promise<StoredDocument> {
    const key = `${this.options.prefix}${contentKey(document.sha256)}`;
    const { sha256, sizeBytes, contentType } = document;
    const stored = { uri: `s3://${this.options.bucket}/${key}`, sha256, sizeBytes, contentType };
    try {
      if (await this.exists(key)) return { ...stored, written: false };
      const upload = new Upload({
        client: this.client,
        params: {
          Bucket: this.options.bucket,
          Key: key,
          Body: createReadStream(document.path),
          ContentLength: sizeBytes,
          ...(contentType ? { ContentType: contentType } : {}),
          Metadata: { sha256 },
        },
        // One part in flight per document: a retrieval's memory stays one part (5 MiB) at most.
        queueSize: 1,
      });
      await upload.done();
      return { ...stored, written: true };
    } finally {
      await rm(document.path, { force: true });
    }
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }

  private async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return true;
    } catch (error) {
      const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404) return false;
      throw error;
    }
  }
}
