// Test helper for rewind's end-to-end decision tests (decide_e2e_test.go,
// REWIND_NODE_TESTS=1): a Durable Stream writer that appends under
// proper-lockfile, as the Durable Stream plugin does. Needs
// proper-lockfile@4.1.2 on NODE_PATH.
//
//   node ds_writer.js append FILE WRITER STOPFILE
//       Until STOPFILE exists (or 60 s have passed): lock FILE with
//       proper-lockfile (retries {retries: 100, minTimeout: 5, maxTimeout:
//       50}), append one Durable Stream event (execution.text_delta,
//       execution.reasoning_delta or execution.tool_finish; 60 % of them
//       50-500 bytes, 40 % 1-50 KB) with one appendFileSync (one write(2)),
//       unlock. The event's metadata is {writer, n, seq, sha256}: n counts
//       this writer's appends from 0, seq is the last seq in FILE plus one
//       (read under the lock), sha256 is the hex SHA-256 of the UTF-8 text.
//       Under the lock it also checks that the file grew by exactly its own
//       line (nobody else wrote while it held the lock) and counts the
//       times it did not as "intrusions". Prints "started" after the first
//       append and, at the end, one JSON line {writer, appended, bytes,
//       intrusions, lock_failures}.
//   node ds_writer.js hold FILE
//       Lock FILE with proper-lockfile's defaults (stale 10 s, update 5 s),
//       print "locked", and hold (refresh) the lock until killed.
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const lockfile = require('proper-lockfile');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const correlation = crypto.randomBytes(8).toString('hex');

function eventId(ms) {
  return ms.toString(36).padStart(9, '0') + '_' + crypto.randomBytes(8).toString('hex');
}

const words = [
  'the', 'journal', 'append', 'lock', 'checkpoint', 'agent', 'naïve', 'café',
  '日本語', 'データ', '🚀', '✓', '"quoted"', 'back\\slash', 'tab\there', 'line\n',
  'O(n²)', '<tag>', '&amp;', 'µs', 'Zürich', 'ünïcödé', 'const x = {a: 1};',
];

function text(bytes) {
  const parts = [];
  let n = 0;
  while (n < bytes) {
    const w = words[crypto.randomInt(words.length)];
    parts.push(w);
    n += Buffer.byteLength(w) + 1;
  }
  return parts.join(' ');
}

function size() {
  if (Math.random() < 0.6) return 50 + crypto.randomInt(451);
  return Math.round(1024 * Math.pow(50, Math.random())); // 1-50 KB, log-uniform
}

// lastSeq returns the seq in the metadata of the last complete line of fd
// that has one (0 if none).
function lastSeq(fd, size) {
  for (let tail = 256 * 1024; ; tail *= 4) {
    const start = Math.max(0, size - tail);
    const buf = Buffer.alloc(size - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    if (start > 0) lines.shift(); // probably partial
    for (let i = lines.length - 1; i >= 0; i--) {
      if (!lines[i]) continue;
      try {
        const v = JSON.parse(lines[i]);
        if (v && v.metadata && typeof v.metadata.seq === 'number') return v.metadata.seq;
      } catch (e) {
        // torn or foreign line: keep looking
      }
    }
    if (start === 0) return 0;
  }
}

async function append(file, writer, stopFile) {
  const deadline = Date.now() + 60000;
  const session = 'ses_' + crypto.randomBytes(6).toString('hex');
  let appended = 0, bytes = 0, intrusions = 0, lockFailures = 0;
  while (!fs.existsSync(stopFile) && Date.now() < deadline) {
    let release;
    try {
      release = await lockfile.lock(file, { retries: { retries: 100, minTimeout: 5, maxTimeout: 50 } });
    } catch (e) {
      if (e.code !== 'ELOCKED') throw e;
      lockFailures++;
      continue;
    }
    try {
      const fd = fs.openSync(file, 'r');
      let before;
      try {
        before = fs.fstatSync(fd).size;
        const seq = lastSeq(fd, before) + 1;
        const ms = Date.now();
        const kinds = ['execution.text_delta', 'execution.reasoning_delta', 'execution.tool_finish'];
        const type = kinds[appended % 3];
        const delta = text(size());
        let payload;
        if (type === 'execution.tool_finish') {
          payload = {
            sessionID: session, messageID: 'msg_' + writer, partID: `prt_${writer}_${appended}`,
            tool: 'bash', state: { status: 'completed', output: delta },
          };
        } else {
          payload = { sessionID: session, messageID: 'msg_' + writer, partID: `prt_${writer}_${appended}`, delta };
        }
        const ev = {
          type, stream_id: session, correlation_id: correlation, actor: 'system', payload,
          metadata: { writer, n: appended, seq, sha256: crypto.createHash('sha256').update(delta, 'utf8').digest('hex') },
          id: eventId(ms), timestamp: ms,
        };
        const line = JSON.stringify(ev) + '\n';
        if (appended % 7 === 3) await sleep(10 + crypto.randomInt(20)); // hold the lock a while
        fs.appendFileSync(file, line);
        const after = fs.statSync(file).size;
        if (after !== before + Buffer.byteLength(line)) {
          intrusions++;
          process.stderr.write(`${writer}: intrusion: the file grew from ${before} to ${after}, not by ${Buffer.byteLength(line)}\n`);
        }
        bytes += Buffer.byteLength(line);
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      await release();
    }
    appended++;
    if (appended === 1) process.stdout.write('started\n');
    await sleep(crypto.randomInt(4));
  }
  process.stdout.write(JSON.stringify({ writer, appended, bytes, intrusions, lock_failures: lockFailures }) + '\n');
}

async function hold(file) {
  await lockfile.lock(file);
  process.stdout.write('locked\n');
  setInterval(() => {}, 1000);
}

const [mode, file, writer, stopFile] = process.argv.slice(2);
(mode === 'append' ? append(file, writer, stopFile) : hold(file)).catch((e) => {
  process.stderr.write(`ds_writer: ${e.stack || e}\n`);
  process.exit(1);
});
