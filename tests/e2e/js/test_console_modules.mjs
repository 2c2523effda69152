// The console's browser-free modules, in Node: the metrics arithmetic
// (rates and percentiles from cumulative counters, a restart, both bucket
// conventions), the stream reader (LATEST on open shards, TRIM_HORIZON from
// the roots, a closed shard's children, expired iterators, pausing and a
// hidden page stopping the polls, backoff while empty), the image diff and
// value text of the stream viewer, and the chart's scale.
//
//   node --test tests/e2e/js/test_console_modules.mjs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cumulativeBuckets, delta, formatRate, formatSeconds, quantile } from '../../../tools/console/js/metrics_math.js';
import { EMPTY_DELAYS_MS, StreamReader } from '../../../tools/console/js/stream_reader.js';
import { canonical, diffImages, valueText } from '../../../tools/console/js/attribute_display.js';
import { niceMax, polylines } from '../../../tools/console/js/svg_chart.js';

const BOUNDS = [0.001, 0.01, 0.1];
// A snapshot whose one operation took these latencies (seconds) in total.
function snapshot(uptime, latencies, errors = 0) {
  const counts = BOUNDS.map((le) => latencies.filter((l) => l <= le).length);
  return {
    uptime_seconds: uptime, requests: latencies.length, errors,
    operations: { GetItem: { requests: latencies.length, errors, latency_buckets: [
      ...BOUNDS.map((le, i) => ({ le, count: counts[i] })), { le: '+Inf', count: latencies.length }] } },
  };
}

describe('metrics arithmetic', () => {
  test('rates and percentiles come from the difference of two snapshots', () => {
    const before = snapshot(10, new Array(100).fill(0.05));  // 100 slow requests before
    const now = snapshot(12, [...new Array(100).fill(0.05), ...new Array(90).fill(0.0005),
      ...new Array(10).fill(0.005)], 4);
    const d = delta(before, now);
    assert.equal(d.dt, 2);
    assert.equal(d.overall.requests, 100);
    assert.equal(d.overall.rate, 50);
    assert.equal(d.overall.errorRate, 2);
    // 90 in (0, 1 ms], 10 in (1 ms, 10 ms]: p50 inside the first bucket, p99 inside the second.
    assert.ok(Math.abs(d.overall.p50 - 0.001 * 50 / 90) < 1e-12, `p50 ${d.overall.p50}`);
    assert.ok(d.overall.p95 > 0.001 && d.overall.p95 < 0.01);
    assert.ok(d.overall.p99 > d.overall.p95 && d.overall.p99 <= 0.01);
    assert.equal(d.operations.GetItem.rate, 50);
    assert.equal(d.overall.overflow, false);
  });

  test('a restart (uptime or counters going back) gives no difference', () => {
    assert.equal(delta(snapshot(10, [0.001]), snapshot(2, [0.001])), null);
    assert.equal(delta(snapshot(10, [0.001, 0.001]), snapshot(11, [0.001])), null);
    assert.equal(delta(null, snapshot(1, [])), null);
  });

  test('per-bucket counts read the same as cumulative ones; +Inf is an overflow', () => {
    const cumulative = [{ le: 0.001, count: 2 }, { le: 0.01, count: 5 }, { le: '+Inf', count: 6 }];
    const perBucket = [{ le: 0.001, count: 2 }, { le: 0.01, count: 3 }, { le: '+Inf', count: 1 }];
    assert.deepEqual(cumulativeBuckets(perBucket, 6), cumulativeBuckets(cumulative, 6));
    const q = quantile(0.99, cumulativeBuckets(cumulative, 6));
    assert.deepEqual(q, { value: 0.01, overflow: true });
    assert.deepEqual(quantile(0.5, []), { value: null, overflow: false });
    assert.equal(formatSeconds(q.value, q.overflow), '>10 ms');
  });

  test('numbers read as the charts show them', () => {
    assert.equal(formatSeconds(0.0000957), '95.7 µs');
    assert.equal(formatSeconds(0.1), '100 ms');
    assert.equal(formatSeconds(2.5), '2.5 s');
    assert.equal(formatSeconds(null), '—');
    assert.equal(formatRate(0), '0/s');
    assert.equal(formatRate(0.5), '0.5/s');
    assert.equal(formatRate(254.93), '254.9/s');
    assert.equal(formatRate(12345.6), '12,346/s');
    assert.equal(niceMax(0), 1);
    assert.equal(niceMax(3.2), 5);
    assert.equal(niceMax(180), 200);
    assert.equal(niceMax(240), 250);
    assert.deepEqual(polylines([null, 1, 2, null, 4], 4, 100), ['1,74.50 2,50.00', '3.4,1.00 4,1.00']);
  });
});

describe('the stream reader', () => {
  // A fake DynamoDB Streams API: shards with records, GetRecords pages, the
  // calls it was given; iterators are "shard:position".
  function fakeStreams(shards) {
    const calls = [];
    const call = async (op, body, opts) => {
      assert.equal(opts?.streams, true, `${op} goes to DynamoDB Streams`);
      calls.push({ op, body });
      if (op === 'DescribeStream') {
        return { data: { StreamDescription: { Shards: shards.map((s) => ({ ShardId: s.id, ParentShardId: s.parent,
          SequenceNumberRange: s.closed ? { StartingSequenceNumber: '1', EndingSequenceNumber: '9' } : { StartingSequenceNumber: '1' } })) } } };
      }
      if (op === 'GetShardIterator') {
        const s = shards.find((x) => x.id === body.ShardId);
        const at = body.ShardIteratorType === 'LATEST' ? s.records.length
          : body.ShardIteratorType === 'AFTER_SEQUENCE_NUMBER' ? s.records.findIndex((r) => r.dynamodb.SequenceNumber === body.SequenceNumber) + 1 : 0;
        return { data: { ShardIterator: `${s.id}:${at}` } };
      }
      if (op === 'GetRecords') {
        const [id, at] = body.ShardIterator.split(':');
        const s = shards.find((x) => x.id === id);
        if (s.expire?.has(body.ShardIterator)) {
          s.expire.delete(body.ShardIterator);
          throw Object.assign(new Error('expired'), { type: 'ExpiredIteratorException' });
        }
        const records = s.records.slice(Number(at));
        const next = s.closed ? null : `${id}:${s.records.length}`;
        return { data: { Records: records, NextShardIterator: next } };
      }
      throw new Error(`unexpected ${op}`);
    };
    return { call, calls };
  }
  const rec = (seq) => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: String(seq), Keys: { pk: { S: `k${seq}` } } } });
  // A document whose visibility the test sets, and timers the test runs.
  function harness() {
    const listeners = new Set();
    const doc = { visibilityState: 'visible', addEventListener: (_, f) => listeners.add(f),
      removeEventListener: (_, f) => listeners.delete(f) };
    const timers = [];
    return {
      doc, timers,
      setTimer: (fn, ms) => { const t = { fn, ms }; timers.push(t); return t; },
      clearTimer: (t) => { const i = timers.indexOf(t); if (i >= 0) timers.splice(i, 1); },
      async runNext() { const t = timers.shift(); assert.ok(t, 'a poll is scheduled'); await t.fn(); await new Promise((r) => setImmediate(r)); return t.ms; },
      setVisibility(v) { doc.visibilityState = v; for (const f of listeners) f(); },
    };
  }

  test('LATEST reads the open shard from now on, and backs off while it is empty', async () => {
    const shards = [{ id: 'a', closed: true, records: [rec(1)] }, { id: 'b', parent: 'a', records: [rec(2)] }];
    const { call, calls } = fakeStreams(shards);
    const h = harness();
    const got = [];
    const r = new StreamReader(call, 'arn', { onRecords: (rs) => got.push(...rs), doc: h.doc, setTimer: h.setTimer,
      clearTimer: h.clearTimer });
    await r.start('LATEST');
    assert.deepEqual(calls.filter((c) => c.op === 'GetShardIterator').map((c) => [c.body.ShardId, c.body.ShardIteratorType]),
      [['b', 'LATEST']]);
    assert.equal(await h.runNext(), 0);
    assert.deepEqual(got, []);
    assert.equal(h.timers[0].ms, EMPTY_DELAYS_MS[0], 'an empty round waits');
    shards[1].records.push(rec(3));
    await h.runNext();
    assert.deepEqual(got.map((x) => x.dynamodb.SequenceNumber), ['3']);
    assert.ok(h.timers[0].ms < EMPTY_DELAYS_MS[0], 'records coming: the next poll is sooner');
    await h.runNext();
    await h.runNext();
    assert.equal(h.timers[0].ms, EMPTY_DELAYS_MS[Math.min(2, EMPTY_DELAYS_MS.length) - 1], 'backing off');
    r.stop();
  });

  test('TRIM_HORIZON reads parents before children, following closed shards', async () => {
    const shards = [{ id: 'c', parent: 'b', records: [rec(5)] }, { id: 'b', parent: 'a', closed: true, records: [rec(3), rec(4)] },
      { id: 'a', closed: true, records: [rec(1), rec(2)] }];
    const { call } = fakeStreams(shards);
    const h = harness();
    const got = [];
    const r = new StreamReader(call, 'arn', { onRecords: (rs) => got.push(...rs), doc: h.doc, setTimer: h.setTimer,
      clearTimer: h.clearTimer });
    await r.start('TRIM_HORIZON');
    for (let i = 0; i < 4; i++) await h.runNext();
    assert.deepEqual(got.map((x) => x.dynamodb.SequenceNumber), ['1', '2', '3', '4', '5']);
    r.stop();
    assert.equal(h.timers.length, 0, 'stopped: nothing scheduled');
  });

  test('an expired iterator resumes after the last record read', async () => {
    const shards = [{ id: 'a', records: [rec(1)], expire: new Set() }];
    const { call, calls } = fakeStreams(shards);
    const h = harness();
    const got = [];
    const r = new StreamReader(call, 'arn', { onRecords: (rs) => got.push(...rs), doc: h.doc, setTimer: h.setTimer,
      clearTimer: h.clearTimer });
    await r.start('TRIM_HORIZON');
    await h.runNext();
    shards[0].expire.add('a:1');
    shards[0].records.push(rec(2));
    await h.runNext();  // expired: a new iterator after sequence number 1
    const last = calls.filter((c) => c.op === 'GetShardIterator').pop();
    assert.deepEqual([last.body.ShardIteratorType, last.body.SequenceNumber], ['AFTER_SEQUENCE_NUMBER', '1']);
    await h.runNext();
    assert.deepEqual(got.map((x) => x.dynamodb.SequenceNumber), ['1', '2']);
    r.stop();
  });

  test('paused or hidden, nothing is polled; resumed or visible, at once', async () => {
    const shards = [{ id: 'a', records: [] }];
    const { call, calls } = fakeStreams(shards);
    const h = harness();
    const states = [];
    const r = new StreamReader(call, 'arn', { onState: (st) => states.push(st.state), doc: h.doc, setTimer: h.setTimer,
      clearTimer: h.clearTimer });
    await r.start('LATEST');
    r.pause();
    assert.equal(h.timers.length, 0);
    r.resume();
    assert.equal(h.timers[0].ms, 0);
    h.setVisibility('hidden');
    assert.equal(h.timers.length, 0, 'hidden: no poll scheduled');
    const n = calls.length;
    h.setVisibility('visible');
    assert.equal(h.timers[0].ms, 0);
    await h.runNext();
    assert.equal(calls.length, n + 1);
    assert.ok(states.includes('paused') && states.includes('hidden'), states.join(' '));
    assert.equal(states[states.length - 1], 'live');
    r.stop();
  });
});

describe('images and values', () => {
  test('the difference of two images names what was added, removed and changed', () => {
    const rows = diffImages(
      { pk: { S: 'a' }, n: { N: '1.50' }, gone: { BOOL: true }, tags: { SS: ['x', 'y'] }, o: { S: 'old' } },
      { pk: { S: 'a' }, n: { N: '1.5' }, added: { NULL: true }, tags: { SS: ['y', 'x'] }, o: { S: 'new' } },
      { first: ['pk'] });
    assert.deepEqual(rows.map((r) => [r.name, r.change]),
      [['pk', 'same'], ['added', 'added'], ['gone', 'removed'], ['n', 'same'], ['o', 'changed'], ['tags', 'same']]);
    assert.deepEqual(diffImages(undefined, { pk: { S: 'a' } }).map((r) => r.change), ['same'], 'an INSERT changes nothing it compares');
  });

  test('values read as DynamoDB means them', () => {
    assert.equal(valueText({ S: 'plain' }), 'plain');
    assert.equal(valueText({ SS: ['a', 'b'] }), '{"a", "b"}');
    assert.equal(valueText({ NS: ['1', '2'] }), '{1, 2}');
    assert.equal(valueText({ M: { b: { N: '2' }, a: { L: [{ S: 'x' }, { BOOL: false }, { NULL: true }] } } }),
      '{"a": ["x", false, null], "b": 2}');
    assert.equal(valueText({ S: 'abcdefghij' }, { max: 5 }), 'abcd…');
    assert.equal(canonical({ M: { a: { N: '1.0' } } }), canonical({ M: { a: { N: '1' } } }));
  });
});
