// Whether the table controller runs, on every page (the dealer's screen, the floor's pages): a full-width banner
// when the daemon stops (its heartbeat, web/feed.py: `event: liveness` at least every second) or when this page's
// own event stream drops or falls silent; document.body.dataset.live is "running", "stopped" or "disconnected".
// The stream: the page's own (window.__events) when it has one, else the script tag's data-events (default
// /liveness); the banner fills <div id="liveness">.
"use strict";
(function () {
  const SILENT_MS = 3000;  // no event for this long: the stream is lost (the service sends one every second)
  const SAID = {
    stopped: "TABLE CONTROLLER NOT RUNNING \u2014 do not deal",
    disconnected: "NO CONNECTION TO THE TABLE SERVICE \u2014 do not deal",
  };
  const script = document.currentScript;
  const url = (script && script.dataset.events) || "/liveness";
  let timer = null;
  let shown = "";

  function clock(epoch) {
    // the viewer's local time with its zone ("14:03:07 EST"); epoch seconds from the daemon's clock
    return new Date(epoch * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit",
      hour12: false, timeZoneName: "short" });
  }

  function show(state, heartbeat) {
    const key = state + (state === "stopped" && heartbeat ? " " + heartbeat : "");
    document.body.dataset.live = state;
    if (key === shown) return;  // unchanged: the alert is not announced again every second
    shown = key;
    const box = document.getElementById("liveness");
    if (!box) return;
    box.setAttribute("role", "alert");
    box.textContent = "";
    if (state === "running") {
      box.hidden = true;
      return;
    }
    const head = document.createElement("strong");
    head.textContent = SAID[state];
    box.appendChild(head);
    if (state === "stopped" && heartbeat) {
      const last = document.createElement("span");
      last.className = "last";
      last.textContent = "last heard from at " + clock(heartbeat);
      box.appendChild(last);
    }
    box.hidden = false;
  }

  function heard() {
    clearTimeout(timer);
    timer = setTimeout(() => show("disconnected"), SILENT_MS);
  }

  // a page that has its own stream of the service (the dealer's: /events sends the liveness too) shares it: one
  // connection a page (a browser opens six at most to one address)
  const source = window.__events || new EventSource(url);
  source.addEventListener("liveness", (e) => {
    const d = JSON.parse(e.data);
    show(d.running ? "running" : "stopped", d.heartbeat);
    heard();
  });
  source.addEventListener("status", heard);  // a stream that also sends the status: any event is a sign of life
  source.addEventListener("error", () => show("disconnected"));
  heard();
  window.__liveness = source;  // the browser tests look at it
})();
