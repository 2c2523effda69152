// The Create table dialog: name, partition and sort key, billing mode (with
// read and write capacity when provisioned), global secondary indexes (each
// with up to four partition and four sort attributes: DynamoDB's
// multi-attribute keys), local secondary indexes, stream view type and a time
// to live attribute. It shows the CreateTable request as it is built; the
// server validates it, and its error (type and message) is shown as given.
//
//   const name = await openCreateTable(ctx);   // the new table's name, or null
import { h, clear, field, newId, openDialog } from './dom.js';

const MAX_KEY_ATTRS = 4;
const typeSelect = (value = 'S', label = 'Type') => h('select', { 'aria-label': label },
  [['S', 'String (S)'], ['N', 'Number (N)'], ['B', 'Binary (B)']].map(([v, t]) => h('option', { value: v, selected: v === value }, t)));

// One key attribute: name + type, with a remove button when removable.
function keyAttr(role, { removable = false, onRemove, required = false } = {}) {
  const name = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', 'aria-label': `${role} attribute name`, required, placeholder: 'attribute name' });
  const type = typeSelect('S', `${role} attribute type`);
  const remove = removable ? h('button', { type: 'button', class: 'small secondary', 'aria-label': `Remove this ${role.toLowerCase()} attribute`, onclick: () => { el.remove(); onRemove?.(); } }, '×') : null;
  const el = h('div', { class: 'key-attr' }, name, type, remove);
  return { el, get: () => ({ name: name.value.trim(), type: type.value }), name };
}

// A growing list of key attributes (for a GSI's multi-attribute keys).
function keyAttrList(role, min, onChange) {
  const rows = [];
  const box = h('div', { class: 'key-attrs' });
  const add = h('button', { type: 'button', class: 'small secondary' }, `Add ${role.toLowerCase()} attribute`);
  const sync = () => { add.disabled = rows.length >= MAX_KEY_ATTRS; onChange(); };
  const addRow = () => {
    const r = keyAttr(role, {
      removable: rows.length >= min, required: rows.length < min,
      onRemove: () => { rows.splice(rows.indexOf(r), 1); sync(); },
    });
    rows.push(r);
    box.append(r.el);
    sync();
    return r;
  };
  add.addEventListener('click', () => addRow().name.focus());
  for (let i = 0; i < min; i++) addRow();
  return { el: h('div', {}, box, add), get: () => rows.map((r) => r.get()).filter((a) => a.name) };
}

function projectionFields() {
  const type = h('select', { 'aria-label': 'Projection' },
    ['ALL', 'KEYS_ONLY', 'INCLUDE'].map((v) => h('option', { value: v }, v)));
  const include = h('input', { type: 'text', placeholder: 'attr1, attr2', spellcheck: 'false', 'aria-label': 'Attributes to include' });
  const includeField = field('Non-key attributes (INCLUDE)', include);
  includeField.hidden = true;
  type.addEventListener('change', () => { includeField.hidden = type.value !== 'INCLUDE'; });
  return {
    el: [field('Projection', type), includeField],
    get: () => {
      const p = { ProjectionType: type.value };
      if (type.value === 'INCLUDE') p.NonKeyAttributes = include.value.split(',').map((s) => s.trim()).filter(Boolean);
      return p;
    },
  };
}

function capacityFields(labelPrefix = '') {
  const rcu = h('input', { type: 'number', min: '1', value: '5', inputmode: 'numeric' });
  const wcu = h('input', { type: 'number', min: '1', value: '5', inputmode: 'numeric' });
  const el = h('div', { class: 'row capacity' }, field(`${labelPrefix}Read capacity units`, rcu), field(`${labelPrefix}Write capacity units`, wcu));
  return { el, get: () => ({ ReadCapacityUnits: Number(rcu.value), WriteCapacityUnits: Number(wcu.value) }) };
}

export async function openCreateTable(ctx) {
  const preview = h('pre', { class: 'code small', 'aria-label': 'CreateTable request' });
  const update = () => { preview.textContent = JSON.stringify(build(), null, 2); };

  const tableName = h('input', { type: 'text', required: true, spellcheck: 'false', autocomplete: 'off', autofocus: true, placeholder: 'e.g. Orders' });
  const pk = keyAttr('Partition key', { required: true });
  const sk = keyAttr('Sort key');
  const billingName = newId('billing');
  const onDemand = h('input', { type: 'radio', name: billingName, value: 'PAY_PER_REQUEST', checked: true });
  const provisioned = h('input', { type: 'radio', name: billingName, value: 'PROVISIONED' });
  const tableCap = capacityFields();
  const isProvisioned = () => provisioned.checked;
  const streamType = h('select', {}, [['', 'Off'], ['KEYS_ONLY', 'KEYS_ONLY'], ['NEW_IMAGE', 'NEW_IMAGE'],
    ['OLD_IMAGE', 'OLD_IMAGE'], ['NEW_AND_OLD_IMAGES', 'NEW_AND_OLD_IMAGES']].map(([v, t]) => h('option', { value: v }, t)));
  const ttlAttr = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: 'e.g. expiresAt (epoch seconds)' });

  const gsis = [];
  const lsis = [];
  const indexBox = h('div', { class: 'indexes' });

  const syncCapacity = () => {
    tableCap.el.hidden = !isProvisioned();
    for (const g of gsis) g.cap.el.hidden = !isProvisioned();
    update();
  };

  function addGsi() {
    const n = gsis.length + lsis.length + 1;
    const name = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', required: true, placeholder: `index${n}` });
    const hash = keyAttrList('Partition', 1, update);
    const range = keyAttrList('Sort', 0, update);
    const proj = projectionFields();
    const cap = capacityFields('Index ');
    cap.el.hidden = !isProvisioned();
    const g = { name, hash, range, proj, cap };
    const remove = h('button', { type: 'button', class: 'small secondary', onclick: () => { gsis.splice(gsis.indexOf(g), 1); fs.remove(); update(); } }, 'Remove index');
    const fs = h('fieldset', { class: 'index' }, h('legend', {}, 'Global secondary index'),
      field('Index name', name),
      h('div', { class: 'field' }, h('span', { class: 'label' }, 'Partition key attributes (1–4)'), hash.el),
      h('div', { class: 'field' }, h('span', { class: 'label' }, 'Sort key attributes (0–4)'), range.el),
      proj.el, cap.el, remove);
    gsis.push(g);
    indexBox.append(fs);
    update();
    name.focus();
  }

  function addLsi() {
    const n = gsis.length + lsis.length + 1;
    const name = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', required: true, placeholder: `index${n}` });
    const range = keyAttr('Sort key', { required: true });
    const proj = projectionFields();
    const l = { name, range, proj };
    const remove = h('button', { type: 'button', class: 'small secondary', onclick: () => { lsis.splice(lsis.indexOf(l), 1); fs.remove(); update(); } }, 'Remove index');
    const fs = h('fieldset', { class: 'index' }, h('legend', {}, 'Local secondary index'),
      h('p', { class: 'hint' }, "Same partition key as the table; a different sort key."),
      field('Index name', name),
      h('div', { class: 'field' }, h('span', { class: 'label' }, 'Sort key attribute'), range.el),
      proj.el, remove);
    lsis.push(l);
    indexBox.append(fs);
    update();
    name.focus();
  }

  // The CreateTable request the form describes.
  function build() {
    const defs = [];
    const define = ({ name, type }) => {
      if (!name) return;
      if (!defs.some((d) => d.AttributeName === name && d.AttributeType === type)) defs.push({ AttributeName: name, AttributeType: type });
    };
    const keyOf = (hashes, ranges) => [
      ...hashes.map((a) => (define(a), { AttributeName: a.name, KeyType: 'HASH' })),
      ...ranges.map((a) => (define(a), { AttributeName: a.name, KeyType: 'RANGE' })),
    ];
    const p = pk.get();
    const s = sk.get();
    const req = {
      TableName: tableName.value.trim(),
      KeySchema: keyOf([p], s.name ? [s] : []),
      AttributeDefinitions: defs,
      BillingMode: isProvisioned() ? 'PROVISIONED' : 'PAY_PER_REQUEST',
    };
    if (isProvisioned()) req.ProvisionedThroughput = tableCap.get();
    if (gsis.length) {
      req.GlobalSecondaryIndexes = gsis.map((g) => {
        const ix = { IndexName: g.name.value.trim(), KeySchema: keyOf(g.hash.get(), g.range.get()), Projection: g.proj.get() };
        if (isProvisioned()) ix.ProvisionedThroughput = g.cap.get();
        return ix;
      });
    }
    if (lsis.length) {
      req.LocalSecondaryIndexes = lsis.map((l) => ({
        IndexName: l.name.value.trim(), KeySchema: keyOf([p], [l.range.get()].filter((a) => a.name)), Projection: l.proj.get(),
      }));
    }
    if (streamType.value) req.StreamSpecification = { StreamEnabled: true, StreamViewType: streamType.value };
    return req;
  }

  const body = h('div', { class: 'create-table' },
    field('Table name', tableName),
    h('div', { class: 'field' }, h('span', { class: 'label', id: 'ct-pk' }, 'Partition key'), pk.el),
    h('div', { class: 'field' }, h('span', { class: 'label' }, 'Sort key (optional)'), sk.el),
    h('fieldset', { class: 'inline' }, h('legend', {}, 'Billing mode'),
      h('label', {}, onDemand, ' On-demand'), h('label', {}, provisioned, ' Provisioned'), tableCap.el),
    h('div', { class: 'field' }, h('span', { class: 'label' }, 'Secondary indexes'), indexBox,
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'small secondary', onclick: addGsi }, 'Add global index'),
        h('button', { type: 'button', class: 'small secondary', onclick: addLsi }, 'Add local index'))),
    h('div', { class: 'row' }, field('Stream', streamType), field('Time to live attribute', ttlAttr, 'Optional; items whose value (epoch seconds) has passed are deleted')),
    h('details', {}, h('summary', {}, 'CreateTable request'), preview));
  body.addEventListener('input', update);
  body.addEventListener('change', update);
  onDemand.addEventListener('change', syncCapacity);
  provisioned.addEventListener('change', syncCapacity);
  syncCapacity();

  let created = null;
  await openDialog({
    title: 'Create table', body, wide: true,
    actions: [{ label: 'Create table', value: 'create', primary: true }],
    onSubmit: async (_, { errSlot }) => {
      const req = build();
      if (!created) {
        await ctx.call('CreateTable', req);
        created = req.TableName;
      }
      const ttl = ttlAttr.value.trim();
      if (ttl) {
        try {
          await ctx.call('UpdateTimeToLive', { TableName: created, TimeToLiveSpecification: { Enabled: true, AttributeName: ttl } });
        } catch (e) {
          // The table exists; say so, and let Create retry only the TTL.
          e.message = `${e.message} (the table ${created} was created; its time to live was not set)`;
          throw e;
        }
      }
      clear(errSlot);
      return true;
    },
  });
  return created;
}
