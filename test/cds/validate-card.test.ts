import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateResponse } from '../../src/cds/validate-card.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const card = (over: Record<string, unknown> = {}) => ({ summary: 'Flu shot due', indicator: 'info', source: { label: 'rules' }, ...over });

function rejects(value: unknown, field: string, message?: RegExp): void {
  assert.throws(() => validateResponse(value), (err: any) => {
    assert.equal(err.code, 'ERR_CDS_CARD');
    assert.equal(err.status, 500);
    assert.equal(err.field, field);
    assert.ok(err.message.startsWith(field));
    if (message) assert.match(err.message, message);
    return true;
  });
}

test('adds a uuid to cards and suggestions that lack one and keeps given ones', () => {
  const out = validateResponse({
    cards: [
      card({ suggestions: [{ label: 'do it' }], selectionBehavior: 'any' }),
      card({ uuid: 'keep-me' }),
    ],
  });
  assert.match(out.cards[0]?.uuid ?? '', UUID);
  assert.match(out.cards[0]?.suggestions?.[0]?.uuid ?? '', UUID);
  assert.equal(out.cards[1]?.uuid, 'keep-me');
});

test('accepts a complete card and system actions', () => {
  const out = validateResponse({
    cards: [card({
      detail: '**markdown**',
      indicator: 'critical',
      source: { label: 'Acme', url: 'https://acme.example', icon: 'https://acme.example/i.png', topic: { code: 'x', display: 'X' } },
      suggestions: [{
        label: 'Replace', uuid: 's1', isRecommended: true,
        actions: [
          { type: 'create', description: 'new', resource: { resourceType: 'ServiceRequest' } },
          { type: 'update', description: 'upd', resource: { resourceType: 'ServiceRequest', id: '1' } },
          { type: 'delete', description: 'del', resourceId: ['ServiceRequest/2'] },
          { type: 'delete', description: 'del', resourceId: 'ServiceRequest/3' },
        ],
      }],
      selectionBehavior: 'at-most-one',
      overrideReasons: [{ system: 'http://x', code: 'a', display: 'Patient refused' }],
      links: [{ label: 'docs', url: 'https://x.example', type: 'absolute' }, { label: 'app', url: 'https://app.example', type: 'smart', appContext: 'a=1' }],
    })],
    systemActions: [{ type: 'update', description: 'u', resource: { resourceType: 'Task' } }],
  });
  assert.equal(out.cards.length, 1);
  assert.equal(out.systemActions?.length, 1);
});

test('no advice is an empty card list', () => {
  assert.deepEqual(validateResponse({ cards: [] }), { cards: [] });
});

test('names the card and field of every violation', () => {
  rejects(undefined, 'response');
  rejects({}, 'cards', /array/);
  rejects({ cards: [card(), 'x'] }, 'cards[1]');
  rejects({ cards: [card({ summary: undefined })] }, 'cards[0].summary');
  rejects({ cards: [card({ summary: 'x'.repeat(140) })] }, 'cards[0].summary', /shorter than 140/);
  assert.equal(validateResponse({ cards: [card({ summary: 'x'.repeat(139) })] }).cards.length, 1);
  rejects({ cards: [card(), card({ indicator: 'hint' })] }, 'cards[1].indicator', /^cards\[1\]\.indicator must be one of info, warning, critical$/);
  rejects({ cards: [card({ source: {} })] }, 'cards[0].source.label');
  rejects({ cards: [card({ source: undefined })] }, 'cards[0].source');
  rejects({ cards: [card({ source: { label: 'a', url: 'relative' } })] }, 'cards[0].source.url');
  rejects({ cards: [card({ source: { label: 'a', topic: 'x' } })] }, 'cards[0].source.topic');
  rejects({ cards: [card({ detail: 3 })] }, 'cards[0].detail');
  rejects({ cards: [card({ uuid: 3 })] }, 'cards[0].uuid');
  rejects({ cards: [card({ suggestions: [{ label: 'a' }] })] }, 'cards[0].selectionBehavior');
  rejects({ cards: [card({ selectionBehavior: 'all' })] }, 'cards[0].selectionBehavior');
  rejects({ cards: [card({ suggestions: [{}], selectionBehavior: 'any' })] }, 'cards[0].suggestions[0].label');
  rejects({ cards: [card({ suggestions: [{ label: 'a', isRecommended: 'yes' }], selectionBehavior: 'any' })] }, 'cards[0].suggestions[0].isRecommended');
  const withAction = (action: unknown) => ({ cards: [card({ suggestions: [{ label: 'a', actions: [action] }], selectionBehavior: 'any' })] });
  rejects(withAction({ type: 'remove', description: 'x' }), 'cards[0].suggestions[0].actions[0].type');
  rejects(withAction({ type: 'create', description: 'x' }), 'cards[0].suggestions[0].actions[0].resource', /create action/);
  rejects(withAction({ type: 'update', description: 'x', resource: {} }), 'cards[0].suggestions[0].actions[0].resource');
  rejects(withAction({ type: 'delete', description: 'x' }), 'cards[0].suggestions[0].actions[0].resourceId', /delete action/);
  rejects(withAction({ type: 'delete', description: 'x', resourceId: [] }), 'cards[0].suggestions[0].actions[0].resourceId');
  rejects(withAction({ type: 'delete', description: 'x', resourceId: [4] }), 'cards[0].suggestions[0].actions[0].resourceId[0]');
  rejects(withAction({ type: 'delete', resourceId: 'a/b' }), 'cards[0].suggestions[0].actions[0].description');
  rejects({ cards: [card({ overrideReasons: [{ code: 'a' }] })] }, 'cards[0].overrideReasons[0].display');
  rejects({ cards: [card({ overrideReasons: {} })] }, 'cards[0].overrideReasons');
  rejects({ cards: [card({ links: [{ label: 'a', url: 'https://x', type: 'absolute', appContext: 'z' }] })] }, 'cards[0].links[0].appContext', /only allowed on smart/);
  rejects({ cards: [card({ links: [{ label: 'a', url: 'https://x', type: 'relative' }] })] }, 'cards[0].links[0].type');
  rejects({ cards: [card({ links: [{ label: 'a', url: '/x', type: 'absolute' }] })] }, 'cards[0].links[0].url');
  rejects({ cards: [card({ links: [{ url: 'https://x', type: 'absolute' }] })] }, 'cards[0].links[0].label');
  rejects({ cards: [], systemActions: [{ type: 'create', description: 'x' }] }, 'systemActions[0].resource');
});
