// Follows a DynamoDB stream through the DynamoDB Streams API, for the stream
// viewer: DescribeStream for the shards, GetShardIterator (LATEST on the open
// shards, or TRIM_HORIZON from the oldest), GetRecords honouring
// NextShardIterator, and a closed shard's children read from their start.
// It polls only while started, not paused and the page visible, sooner while
// records come and backing off while none do. No DOM but `document`'s
// visibility.
//
//   const r = new StreamReader(call, streamArn, { onRecords, onError, onState });
//   await r.start('LATEST' | 'TRIM_HORIZON'); r.pause(); r.resume(); r.stop();
//
// `call(operation, body, { streams: true })` is api.js's call. onRecords(records)
// gets each GetRecords page's records in order; onError(e) an ApiError (the
// reader keeps trying unless the stream is gone); onState({ state, shards })
// whenever the polling state changes: 'starting', 'live', 'paused', 'hidden',
// 'stopped', 'error'.

export const BUSY_DELAY_MS = 250;  // the next poll while records come
export const EMPTY_DELAYS_MS = [1000, 1000, 2000];  // after 1, 2, 3+ empty rounds in a row
const PAGE_LIMIT = 1000;

export class StreamReader {
  constructor(call, streamArn, { onRecords = () => {}, onError = () => {}, onState = () => {}, doc = globalThis.document,
    setTimer = (fn, ms) => setTimeout(fn, ms), clearTimer = (t) => clearTimeout(t) } = {}) {
    this.call = call;
    this.streamArn = streamArn;
    this.onRecords = onRecords;
    this.onError = onError;
    this.onState = onState;
    this.doc = doc;
    this.setTimer = setTimer;
    this.clearTimer = clearTimer;
    this.shards = new Map();  // shardId -> { iterator, lastSeq, parent }; shards being read
    this.known = new Set();   // every shard id seen (being read, finished or skipped)
    this.running = false;
    this.paused = false;
    this.busy = false;
    this.timer = null;
    this.emptyRounds = 0;
    this.generation = 0;
    this.onVisibility = () => {
      if (this.visible()) this.schedule(0);
      else this.cancel();
      this.reportState();
    };
  }

  visible() { return !this.doc || this.doc.visibilityState !== 'hidden'; }

  state() {
    if (!this.running) return 'stopped';
    if (this.paused) return 'paused';
    if (!this.visible()) return 'hidden';
    return 'live';
  }

  reportState(extra = {}) {
    this.onState({ state: this.state(), shards: [...this.shards.keys()], ...extra });
  }

  // Every shard of the stream (DescribeStream, page by page).
  async describe() {
    const shards = [];
    let start;
    for (let page = 0; page < 100; page++) {
      const body = { StreamArn: this.streamArn };
      if (start) body.ExclusiveStartShardId = start;
      const { data } = await this.call('DescribeStream', body, { streams: true });
      const d = data.StreamDescription ?? {};
      shards.push(...(d.Shards ?? []));
      start = d.LastEvaluatedShardId;
      if (!start) break;
    }
    return shards;
  }

  async iterator(shardId, type, sequenceNumber) {
    const body = { StreamArn: this.streamArn, ShardId: shardId, ShardIteratorType: type };
    if (sequenceNumber) body.SequenceNumber = sequenceNumber;
    const { data } = await this.call('GetShardIterator', body, { streams: true });
    return data.ShardIterator ?? null;
  }

  // Starts (or restarts) reading: 'LATEST' reads what is written from now on
  // in the open shards; 'TRIM_HORIZON' every record the stream still keeps,
  // parents before children.
  async start(position = 'LATEST') {
    this.stop(false);
    const generation = ++this.generation;
    this.running = true;
    this.paused = false;
    this.emptyRounds = 0;
    this.onState({ state: 'starting', shards: [] });
    this.doc?.addEventListener('visibilitychange', this.onVisibility);
    try {
      const all = await this.describe();
      if (generation !== this.generation) return;
      const ids = new Set(all.map((s) => s.ShardId));
      for (const shard of all) {
        const open = !shard.SequenceNumberRange?.EndingSequenceNumber;
        const root = !shard.ParentShardId || !ids.has(shard.ParentShardId);
        // LATEST skips the closed shards; TRIM_HORIZON leaves the others
        // unknown until their parents are read (adoptNewShards).
        if (position === 'LATEST' ? open : root) {
          const it = await this.iterator(shard.ShardId, position);
          if (generation !== this.generation) return;
          this.known.add(shard.ShardId);
          this.shards.set(shard.ShardId, { iterator: it, lastSeq: null });
        } else if (position === 'LATEST') {
          this.known.add(shard.ShardId);
        }
      }
    } catch (e) {
      if (generation !== this.generation) return;
      this.failed(e);
      return;
    }
    this.reportState();
    this.schedule(0);
  }

  pause() {
    this.paused = true;
    this.cancel();
    this.reportState();
  }

  resume() {
    if (!this.running) return;
    this.paused = false;
    this.emptyRounds = 0;
    this.reportState();
    this.schedule(0);
  }

  // Stops polling for good (until start is called again).
  stop(report = true) {
    this.generation++;
    this.running = false;
    this.cancel();
    this.shards.clear();
    this.known.clear();
    this.doc?.removeEventListener('visibilitychange', this.onVisibility);
    if (report) this.reportState();
  }

  cancel() {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
  }

  schedule(ms) {
    this.cancel();
    if (!this.running || this.paused || !this.visible()) return;
    this.timer = this.setTimer(() => { this.timer = null; this.tick(); }, ms);
  }

  async tick() {
    if (this.busy || !this.running || this.paused || !this.visible()) return;
    this.busy = true;
    const generation = this.generation;
    let got = 0;
    try {
      got = await this.round(generation);
    } finally {
      this.busy = false;
    }
    if (generation !== this.generation) return;
    if (got > 0) this.emptyRounds = 0;
    else this.emptyRounds++;
    const delay = got > 0 ? BUSY_DELAY_MS : EMPTY_DELAYS_MS[Math.min(this.emptyRounds, EMPTY_DELAYS_MS.length) - 1];
    this.schedule(delay);
  }

  // One GetRecords per shard being read; returns how many records came.
  async round(generation) {
    let got = 0;
    if (this.shards.size === 0) await this.adoptNewShards(generation);
    for (const [shardId, shard] of [...this.shards]) {
      if (generation !== this.generation) return got;
      try {
        if (!shard.iterator) shard.iterator = await this.iterator(shardId, 'TRIM_HORIZON');
        const { data } = await this.call('GetRecords', { ShardIterator: shard.iterator, Limit: PAGE_LIMIT },
          { streams: true });
        if (generation !== this.generation) return got;
        const records = data.Records ?? [];
        if (records.length) {
          shard.lastSeq = records[records.length - 1].dynamodb?.SequenceNumber ?? shard.lastSeq;
          got += records.length;
          this.onRecords(records, shardId);
        }
        if (data.NextShardIterator) {
          shard.iterator = data.NextShardIterator;
        } else {
          // The shard is closed and read to its end: its children follow it.
          this.shards.delete(shardId);
          await this.adoptNewShards(generation);
          this.reportState();
        }
      } catch (e) {
        if (generation !== this.generation) return got;
        if (e.type === 'ExpiredIteratorException') {
          shard.iterator = shard.lastSeq ? await this.safeIterator(shardId, 'AFTER_SEQUENCE_NUMBER', shard.lastSeq)
            : await this.safeIterator(shardId, 'LATEST');
        } else if (e.type === 'TrimmedDataAccessException') {
          shard.iterator = null;  // the records it pointed at are gone: the oldest kept next
          this.onError(e);
        } else if (e.type === 'ResourceNotFoundException' || e.type === 'ValidationException') {
          this.failed(e);
          return got;
        } else {
          this.onError(e);
        }
      }
    }
    return got;
  }

  async safeIterator(shardId, type, seq) {
    try {
      return await this.iterator(shardId, type, seq);
    } catch (e) {
      this.onError(e);
      return null;
    }
  }

  // Shards the reader has not seen (children of closed shards, a new stream's
  // first shard) are read from their start, each after its parent.
  async adoptNewShards(generation) {
    let all;
    try {
      all = await this.describe();
    } catch (e) {
      if (generation === this.generation) this.onError(e);
      return;
    }
    if (generation !== this.generation) return;
    const ids = new Set(all.map((x) => x.ShardId));
    // A shard is read once its parent is read to its end (or gone).
    const ready = all.filter((x) => !this.known.has(x.ShardId) && (!x.ParentShardId || !ids.has(x.ParentShardId) ||
      (this.known.has(x.ParentShardId) && !this.shards.has(x.ParentShardId))));
    for (const shard of ready) {
      this.known.add(shard.ShardId);
      this.shards.set(shard.ShardId, { iterator: null, lastSeq: null });
    }
  }

  failed(e) {
    this.generation++;
    this.running = false;
    this.cancel();
    this.doc?.removeEventListener('visibilitychange', this.onVisibility);
    this.onError(e);
    this.onState({ state: 'error', shards: [] });
  }
}
