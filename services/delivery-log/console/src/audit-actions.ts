/*
 * The audit trail's actions in words, by the API's `action` (the glossary's kind audit-action): the
 * trail shows "dead letters replayed", not dead-letters.replay. A unit test fails when the sources
 * record an action with no entry here (test/console/glossary.test.ts).
 */
export const AUDIT_ACTIONS = {
  'partner.create': { words: 'partner onboarded', meaning: 'An operator created the partner with its first API key.' },
  'partner.update': {
    words: 'partner changed',
    meaning: 'An operator changed the partner’s configuration (endpoints, auth, body mapping …).',
  },
  'partner.disable': {
    words: 'partner disabled',
    meaning: 'Its API keys refused, its sessions ended, and its callbacks dead-lettered while it is disabled.',
  },
  'partner.enable': { words: 'partner enabled', meaning: 'The partner’s keys work again and its callbacks are sent.' },
  'partner.add-key': { words: 'API key added', meaning: 'Another inbound API key was issued; the others keep working.' },
  'partner.rotate-key': { words: 'API key rotated', meaning: 'A new inbound API key was issued; the others stop after the overlap given.' },
  'partner.revoke-key': { words: 'API key revoked', meaning: 'One inbound API key is refused from now on.' },
  'partner.self-service-off': {
    words: 'self-service turned off',
    meaning: 'The partner’s own changes of its endpoints and signing secret are refused.',
  },
  'partner.self-service-on': {
    words: 'self-service turned on',
    meaning: 'The partner may change its endpoints and rotate its signing secret again.',
  },
  'partner.endpoint-add': { words: 'endpoint added', meaning: 'The partner added a callback endpoint itself.' },
  'partner.endpoint-edit': {
    words: 'endpoint changed',
    meaning: 'The partner changed, disabled or enabled one of its callback endpoints itself.',
  },
  'partner.endpoint-delete': { words: 'endpoint deleted', meaning: 'The partner deleted one of its callback endpoints itself.' },
  'partner.rotate-signing-secret': {
    words: 'signing secret rotated',
    meaning: 'A new secret signs the partner’s callbacks, after the overlap its method has.',
  },
  'partner.activate-signing-secret': {
    words: 'new signing secret signing now',
    meaning: 'The rotated HMAC_SHA256 secret was made to sign before its switch time.',
  },
  'partner.notifications-subscribe': {
    words: 'notifications subscribed',
    meaning: 'The partner set the URL its operational notifications go to, and the events it wants.',
  },
  'partner.notifications-unsubscribe': {
    words: 'notifications unsubscribed',
    meaning: 'The partner stopped its operational notifications.',
  },
  'partner.notifications-off': { words: 'notifications switched off', meaning: 'No operational notification is sent to the partner.' },
  'partner.notifications-on': { words: 'notifications switched on', meaning: 'Operational notifications are sent to the partner again.' },
  'portal-token.issue': {
    words: 'portal link issued',
    meaning: 'A link that opens the console for the partner, reading only, until it expires.',
  },
  'portal-token.revoke': { words: 'portal link revoked', meaning: 'The portal link opens nothing from now on.' },
  'operator.create': { words: 'operator added', meaning: 'A new operator token was issued.' },
  'operator.revoke': { words: 'operator revoked', meaning: 'The operator’s token is refused from now on.' },
  'dead-letters.replay': {
    words: 'dead letters replayed',
    meaning: 'Dead letters queued again (an operator’s replay, or a partner’s resend or recovery).',
  },
  'delivery.retry-now': { words: 'retried now', meaning: 'One more send of a failing delivery, asked for by the partner or an operator.' },
  'endpoint.test-event': { words: 'test event sent', meaning: 'A sample callback sent once to one of the partner’s endpoints.' },
};
