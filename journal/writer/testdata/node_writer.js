// Test helper for journal/writer's Node interop tests (REWIND_NODE_TESTS=1).
// Needs proper-lockfile@4.1.2 on NODE_PATH.
//
//   node node_writer.js append FILE WRITER COUNT
//       COUNT times: lock FILE with proper-lockfile, read it, append
//       {"writer":WRITER,"n":i,"seq":<last seq + 1>} + "\n" with one
//       appendFileSync (one write(2)), unlock.
//   node node_writer.js hold FILE
//       lock FILE with proper-lockfile's defaults, print "locked", and keep
//       holding (refreshing) the lock until killed.
'use strict';
const fs = require('fs');
const lockfile = require('proper-lockfile');

function lastSeq(text) {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]) continue;
    try {
      const v = JSON.parse(lines[i]);
      if (typeof v.seq === 'number') return v.seq;
    } catch (e) {
      // torn or foreign line: keep looking
    }
  }
  return 0;
}

async function append(file, writer, count) {
  for (let i = 0; i < count; i++) {
    const release = await lockfile.lock(file, {
      retries: { retries: 50, minTimeout: 5, maxTimeout: 50 },
    });
    try {
      const seq = lastSeq(fs.readFileSync(file, 'utf8')) + 1;
      fs.appendFileSync(file, JSON.stringify({ writer, n: i, seq }) + '\n');
    } finally {
      await release();
    }
  }
}

async function hold(file) {
  await lockfile.lock(file);
  process.stdout.write('locked\n');
  setInterval(() => {}, 1000);
}

const [mode, file, writer, count] = process.argv.slice(2);
(mode === 'append' ? append(file, writer, Number(count)) : hold(file)).catch((e) => {
  process.stderr.write(`node_writer: ${e.stack || e}\n`);
  process.exit(1);
});
