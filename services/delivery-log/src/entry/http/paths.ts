/** Where the two APIs live. */
export const PORTAL_BASE = '/api/portal/v1';
export const ADMIN_BASE = '/api/admin/v1';
