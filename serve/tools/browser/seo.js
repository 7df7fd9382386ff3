// Reads what the SEO checks of site_audit need from the rendered page.
(() => {
  const q = (s) => document.querySelector(s);
  const attr = (s, a) => { const e = q(s); return e ? (e.getAttribute(a) || "") : null; };
  const heads = Array.from(document.querySelectorAll("h1,h2,h3,h4,h5,h6")).map((h) => +h.tagName[1]);
  const imgs = Array.from(document.images);
  const links = Array.from(document.querySelectorAll("a[href]"));
  let internal = 0, external = 0, empty = 0, nofollow = 0;
  for (const a of links) {
    let u;
    try { u = new URL(a.getAttribute("href"), location.href); } catch (e) { continue; }
    if (!/^https?:$/.test(u.protocol)) continue;
    if (u.host === location.host) internal++; else external++;
    if (!(a.textContent || "").trim() && !a.getAttribute("aria-label") && !a.querySelector("img[alt]:not([alt=''])")) empty++;
    if (/\bnofollow\b/i.test(a.getAttribute("rel") || "")) nofollow++;
  }
  const types = [];
  let ldErrors = 0;
  for (const s of document.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      const v = JSON.parse(s.textContent);
      const walk = (o) => {
        if (Array.isArray(o)) return o.forEach(walk);
        if (o && typeof o === "object") {
          if (o["@type"]) types.push(String(o["@type"]));
          if (o["@graph"]) walk(o["@graph"]);
        }
      };
      walk(v);
    } catch (e) { ldErrors++; }
  }
  return JSON.stringify({
    title: document.title || "",
    description: attr('meta[name="description" i]', "content"),
    robots: attr('meta[name="robots" i]', "content"),
    canonical: attr('link[rel="canonical" i]', "href"),
    viewport: attr('meta[name="viewport" i]', "content"),
    lang: document.documentElement.getAttribute("lang") || "",
    og: !!q('meta[property="og:title"]'),
    hreflang: document.querySelectorAll('link[rel="alternate"][hreflang]').length,
    headings: heads,
    images: imgs.length,
    imagesNoAlt: imgs.filter((i) => !i.hasAttribute("alt")).length,
    links: links.length, internal, external, emptyLinks: empty, nofollow,
    ldTypes: types, ldErrors,
    microdata: document.querySelectorAll("[itemscope]").length,
    words: (document.body ? document.body.innerText : "").split(/\s+/).filter(Boolean).length,
  });
})()
