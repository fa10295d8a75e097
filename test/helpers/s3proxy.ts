import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { defaultCacheDir, ensureS3Proxy, requireJava } from '@hookstream/cli/stack';
import { freePort } from '@hookstream/runtime';
import { waitFor } from './infrastructure';
import { startBackgroundServer } from './processes';

export interface RunningS3Proxy {
  endpoint: string;
  bucket: string;
  /** What the fetcher needs to use it (DOCUMENT_STORAGE=s3 with its settings and credentials). */
  env: NodeJS.ProcessEnv;
  /** A client for the test's own checks. */
  client: S3Client;
  stop: () => Promise<void>;
}

/**
 * A real S3 API on loopback: S3Proxy (fetched once into the project's cache through Maven, as the
 * broker is) on a free port, storing in a throwaway folder, with one bucket created.
 */
export async function startS3Proxy(bucket = 'hookstream-documents'): Promise<RunningS3Proxy> {
  const { jar } = await ensureS3Proxy(defaultCacheDir());
  const java = await requireJava(17, 'S3Proxy');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-s3proxy-'));
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'hookstream-test', secretAccessKey: 'hookstream-test-secret' };
  const properties = [
    `s3proxy.endpoint=${endpoint}`,
    's3proxy.authorization=aws-v2-or-v4',
    `s3proxy.identity=${credentials.accessKeyId}`,
    `s3proxy.credential=${credentials.secretAccessKey}`,
    'jclouds.provider=filesystem',
    `jclouds.filesystem.basedir=${path.join(dir, 'data')}`,
  ];
  mkdirSync(path.join(dir, 'data'));
  writeFileSync(path.join(dir, 's3proxy.properties'), `${properties.join('\n')}\n`);
  const { output, exited, stop } = startBackgroundServer(
    java.executable,
    ['-Xmx256m', `-Djava.io.tmpdir=${dir}`, '-jar', jar, '--properties', path.join(dir, 's3proxy.properties')],
    dir,
  );
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  let ended = false;
  void exited.then(() => (ended = true));
  try {
    await waitFor(
      () => {
        if (ended) throw new Error(`S3Proxy ended: ${output().slice(-1500)}`);
        return client.send(new CreateBucketCommand({ Bucket: bucket })).then(() => true);
      },
      `S3Proxy on ${endpoint} to create a bucket`,
      60_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const env = {
    DOCUMENT_STORAGE: 's3',
    DOCUMENT_S3_BUCKET: bucket,
    DOCUMENT_S3_ENDPOINT: endpoint,
    DOCUMENT_S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_REGION: 'us-east-1',
  };
  return {
    endpoint,
    bucket,
    env,
    client,
    stop: async () => {
      client.destroy();
      await stop();
    },
  };
}
