export * from './secret-box';
export * from './api-keys';
export * from './model';
export * from './policy-fields';
export * from './partner-spec';
export * from './partner-directory';
export * from './partner-store';
export * from './partner-admin';
