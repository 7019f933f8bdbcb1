// placeholder, replaced by words.js of part E
// say(code): the words for a code; money(text): "$10,000.48" from a decimal string, exact;
// localTime(epoch): "14:03:07 EST", the local time with its zone.
"use strict";
window.__unsaid = window.__unsaid || [];

function say(code) {
  if (code === null || code === undefined) return "";
  const text = String(code);
  if (!/_/.test(text)) return text.charAt(0).toUpperCase() + text.slice(1);
  const out = text.replace(/_/g, " ");
  return out.charAt(0).toUpperCase() + out.slice(1);
}

function money(text) {
  // exact: from the decimal string, never through a binary float
  const s = String(text);
  const neg = s.startsWith("-");
  const [whole, frac = ""] = s.replace(/^[-+]/, "").split(".");
  const w = (whole || "0").replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return (neg ? "-" : "") + "$" + w + "." + (frac + "00").slice(0, 2);
}

function localTime(epoch) {
  const f = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit",
    hour12: false, timeZoneName: "short" });
  return f.format(new Date(epoch * 1000));
}
