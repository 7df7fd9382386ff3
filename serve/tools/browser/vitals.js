// Installed before any page script runs (Page.addScriptToEvaluateOnNewDocument).
// Records the Core Web Vitals the way the web-vitals library defines them:
// LCP is the last largest-contentful-paint entry; CLS is the largest
// session window of layout shifts (shifts less than 1 s apart, a window at
// most 5 s long); FCP is the first-contentful-paint entry; long tasks are
// kept for total blocking time, computed in Go.
//
// Every layout shift counts, hadRecentInput or not: the tool sends the page
// no input, and under mobile emulation (Emulation.setDeviceMetricsOverride
// with mobile) Chromium flags the shifts that follow its own viewport
// updates as "recent input" (lastInputTime set, no event sent), which would
// drop real shifts of the page. Lighthouse works around the same flag
// (Chromium issues 1094974 and 1302667).
(() => {
  if (window.__openshelfVitals) return;
  const m = window.__openshelfVitals = {lcp: null, lcpSize: 0, lcpElement: "", lcpURL: "", cls: 0, shifts: 0, fcp: null, longTasks: []};
  const describe = (el) => {
    if (!el || !el.tagName) return "";
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    else if (el.classList && el.classList.length) s += "." + Array.from(el.classList).slice(0, 2).join(".");
    return s;
  };
  const observe = (type, fn) => {
    try { new PerformanceObserver((list) => list.getEntries().forEach(fn)).observe({type, buffered: true}); } catch (e) {}
  };
  observe("largest-contentful-paint", (e) => {
    m.lcp = e.startTime; m.lcpSize = e.size; m.lcpElement = describe(e.element); m.lcpURL = e.url || "";
  });
  let value = 0, first = 0, last = 0;
  observe("layout-shift", (e) => {
    m.shifts++;
    if (value && e.startTime - last < 1000 && e.startTime - first < 5000) {
      value += e.value; last = e.startTime;
    } else {
      value = e.value; first = last = e.startTime;
    }
    if (value > m.cls) m.cls = value;
  });
  observe("paint", (e) => { if (e.name === "first-contentful-paint") m.fcp = e.startTime; });
  observe("longtask", (e) => { m.longTasks.push([e.startTime, e.duration]); });
})();
