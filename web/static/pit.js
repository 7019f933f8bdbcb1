// The pit's page (web/pit/server.py): the server draws the alarms and the tables' rows in words and sends them
// by server-sent events (`event: pit`, the newest only); this puts them in place at the next frame.
// document.body.dataset.version is the version drawn; data-live "connected" or "disconnected" (the banner).
// window.__latencies: for each table row whose status stamp (data-updated) changed, the time from that stamp
// (the table's clock: same machine in the benchmark) to the frame that drew it, in ms (tests/bench/pit.py).
"use strict";
(function () {
  window.__latencies = [];
  const seen = {};
  let pending = null;
  let banner = null;

  function say(state) {
    document.body.dataset.live = state;
    banner = banner || document.getElementById("pit-banner");
    if (!banner) return;
    banner.hidden = state === "connected";
    banner.textContent = state === "connected" ? "" : "NO CONNECTION TO THE PIT SERVER: what is shown may be old";
  }

  function draw() {
    const d = pending;
    pending = null;
    if (!d) return;
    const alarms = document.getElementById("alarms");
    const tables = document.getElementById("tables");
    alarms.innerHTML = d.alarms_html;
    alarms.dataset.count = d.alarms;
    tables.innerHTML = d.tables_html;
    tables.dataset.count = d.tables;
    document.body.dataset.database = d.database ? "yes" : "no";
    document.body.dataset.version = d.version;
    const now = Date.now() / 1000;
    for (const row of tables.querySelectorAll("tr[data-table]")) {
      const stamp = row.dataset.updated;
      if (stamp && seen[row.dataset.table] !== stamp) {
        if (seen[row.dataset.table] !== undefined) window.__latencies.push((now - Number(stamp)) * 1000);
        seen[row.dataset.table] = stamp;
      }
    }
  }

  function open() {
    const source = new EventSource("/events");
    source.addEventListener("open", () => say("connected"));
    source.addEventListener("error", () => say("disconnected"));
    source.addEventListener("pit", (ev) => {
      say("connected");
      const first = pending === null;
      pending = JSON.parse(ev.data);
      if (first) requestAnimationFrame(draw);
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    const tables = document.getElementById("tables");
    if (tables) for (const row of tables.querySelectorAll("tr[data-table]")) seen[row.dataset.table] = row.dataset.updated;
    open();
  });
})();
