// Small DOM helpers the console's views share: an element builder, modal
// dialogs (native <dialog>: focus stays inside, Escape cancels, Enter submits),
// the error box that shows an API error exactly as given (type and message),
// a polite status line for screen readers, copy and download.

// h('button', { class: 'primary', onclick: fn, 'aria-label': 'Run' }, 'Run')
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'selected') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
// A document-unique id for label/aria wiring.
export const newId = (prefix = 'c') => `${prefix}-${++uid}`;

// A labelled form field: label above the control; returns the wrapper.
export function field(label, control, hint) {
  if (!control.id) control.id = newId('f');
  const hintEl = hint ? h('div', { class: 'hint', id: newId('hint') }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl);
}

// ---- Errors and status -----------------------------------------------------------

// The error box for an ApiError (or any Error): the DynamoDB error type in
// bold, then its message exactly as the server sent it.
export function errorBox(err) {
  const type = err?.type ?? err?.name ?? 'Error';
  const message = err?.type ? err.message : err?.message ?? String(err);
  return h('div', { class: 'error', role: 'alert' },
    h('strong', { class: 'error-type' }, type), message ? ': ' : '', h('span', { class: 'error-message' }, message));
}

// Replaces the contents of `slot` with the error (or clears it when err is null).
export function showError(slot, err) {
  clear(slot, err ? errorBox(err) : null);
}

// Announces a short message in the page's status line (aria-live=polite).
export function announce(text) {
  const el = document.getElementById('status-line');
  if (!el) return;
  el.textContent = text;
  clearTimeout(announce.timer);
  announce.timer = setTimeout(() => { if (el.textContent === text) el.textContent = ''; }, 6000);
}

// ---- Dialogs ---------------------------------------------------------------------

// Opens a modal dialog. `body` is a node (or nodes); `actions` a list of
// { label, value, primary, danger, disabled } buttons; `onSubmit(value)` may
// return false (or a promise of false) to keep the dialog open (validation),
// or throw to show the error inside it. Resolves to the chosen value, or null
// when cancelled (Escape, Cancel). Enter in a single-line field submits with
// the primary action. `onOpen(dialog)` runs once it is shown (to wire its
// buttons, found by data-action = the action's value).
export function openDialog({ title, body, actions = [], onSubmit, onOpen, wide = false, label }) {
  return new Promise((resolve) => {
    const errSlot = h('div', { class: 'dialog-error', 'aria-live': 'assertive' });
    const titleId = newId('dlg');
    const form = h('form', { method: 'dialog', class: 'dialog-form', novalidate: true });
    const buttons = actions.map((a) => h('button', {
      type: a.primary ? 'submit' : 'button', value: a.value ?? a.label,
      class: [a.primary ? 'primary' : '', a.danger ? 'danger' : ''].join(' ').trim() || null,
      disabled: a.disabled, 'data-action': a.value ?? a.label,
    }, a.label));
    const cancel = h('button', { type: 'button', class: 'secondary', 'data-action': 'cancel' }, 'Cancel');
    append(form, [h('h2', { id: titleId }, title), body, errSlot, h('div', { class: 'dialog-actions' }, cancel, buttons)]);
    const dlg = h('dialog', { class: wide ? 'wide' : null, 'aria-labelledby': titleId, 'aria-label': label }, form);
    document.body.append(dlg);
    let done = false;
    const finish = (v) => {
      if (done) return;
      done = true;
      dlg.close();
      dlg.remove();
      resolve(v);
    };
    const attempt = async (value) => {
      showError(errSlot, null);
      try {
        const ok = onSubmit ? await onSubmit(value, { errSlot, dialog: dlg }) : true;
        if (ok !== false) finish(value);
      } catch (e) {
        showError(errSlot, e);
      }
    };
    cancel.addEventListener('click', () => finish(null));
    dlg.addEventListener('cancel', (e) => { e.preventDefault(); finish(null); });
    for (const [i, b] of buttons.entries()) {
      if (!actions[i].primary) b.addEventListener('click', () => attempt(actions[i].value ?? actions[i].label));
    }
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const primary = actions.find((a) => a.primary);
      const btn = buttons[actions.indexOf(primary)];
      if (primary && !btn.disabled) attempt(primary.value ?? primary.label);
    });
    dlg.showModal();
    onOpen?.(dlg);
    const first = form.querySelector('[autofocus]') ??
      form.querySelector('input:not([type=hidden]):not([disabled]), select, textarea');
    (first ?? cancel).focus();
  });
}

// "Are you sure?" with one danger button; resolves true or false.
export async function confirmAction(title, text, label = 'Delete') {
  const v = await openDialog({ title, body: h('p', {}, text), actions: [{ label, value: 'ok', primary: true, danger: true }] });
  return v === 'ok';
}

// ---- Copy and download -------------------------------------------------------------

// A "Copy" button for the text getText() returns.
export function copyButton(getText, label = 'Copy') {
  const b = h('button', { type: 'button', class: 'small secondary', 'aria-label': label }, 'Copy');
  b.addEventListener('click', async () => {
    const text = getText();
    try {
      await navigator.clipboard.writeText(text);
      announce('Copied');
    } catch {
      // No clipboard permission (plain http on another host): select the text instead.
      const ta = h('textarea', { class: 'offscreen' }, text);
      document.body.append(ta);
      ta.select();
      document.execCommand?.('copy');
      ta.remove();
      announce('Copied');
    }
  });
  return b;
}

// Saves `text` as a file named `name` (type `mime`) through a Blob link.
export function download(name, text, mime) {
  const url = URL.createObjectURL(new Blob([text], { type: mime }));
  const a = h('a', { href: url, download: name, class: 'offscreen' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// ---- Formatting --------------------------------------------------------------------

export function formatBytes(n) {
  if (n === undefined || n === null) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = Number(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${u === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export const formatCount = (n) => (n === undefined || n === null ? '—' : Number(n).toLocaleString('en-US'));

// Units of capacity to at most two decimals ("0.5", "12").
export const formatUnits = (n) => (n === undefined || n === null ? '—' : String(Math.round(Number(n) * 100) / 100));

// A key schema as text: "pk (HASH S), sk (RANGE N)"; `defs` the AttributeDefinitions.
export function keySchemaText(keySchema = [], defs = []) {
  const type = Object.fromEntries(defs.map((d) => [d.AttributeName, d.AttributeType]));
  return keySchema.map((k) => `${k.AttributeName}\u00a0(${k.KeyType === 'HASH' ? 'partition' : 'sort'}${type[k.AttributeName] ? '\u00a0' + type[k.AttributeName] : ''})`).join(', ');
}

// A table's billing mode: "On-demand" or "Provisioned 5 RCU / 5 WCU".
export function billingText(t) {
  const mode = t.BillingModeSummary?.BillingMode ??
    (t.ProvisionedThroughput?.ReadCapacityUnits ? 'PROVISIONED' : 'PAY_PER_REQUEST');
  if (mode === 'PROVISIONED') {
    const p = t.ProvisionedThroughput ?? {};
    return `Provisioned ${p.ReadCapacityUnits ?? 0} RCU / ${p.WriteCapacityUnits ?? 0} WCU`;
  }
  return 'On-demand';
}
