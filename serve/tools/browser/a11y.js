// Runs axe-core, already evaluated in the same isolated world, on the page
// and returns what site_audit's accessibility score needs, as JSON: every
// rule that failed, passed or needs review, with the impact axe-core
// declares for the rule (the score's weight) and, for a failure, the
// impact of this failure and the first elements at fault. The rules are
// axe-core's WCAG 2.0, 2.1 and 2.2 level A and AA rules. A rule some
// elements pass and others fail is listed as passed and as failed; Go
// counts it failed. Only the top document is checked (iframes: false); the
// scroll position is restored because axe scrolls elements into view.
(async () => {
  const x = window.scrollX, y = window.scrollY;
  const declared = Object.fromEntries(((axe._audit && axe._audit.rules) || []).map((r) => [r.id, r.impact]));
  const rule = (r) => ({
    id: r.id, ruleImpact: declared[r.id] || r.impact || "", help: r.help,
    helpURL: (r.helpUrl || "").split("?")[0], tags: r.tags.filter((t) => /^wcag\d/.test(t)),
  });
  try {
    axe.configure({noHtml: true});
    const r = await axe.run(document, {
      runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]},
      resultTypes: ["violations"], iframes: false,
    });
    return JSON.stringify({
      version: r.testEngine.version,
      violations: r.violations.map((v) => Object.assign(rule(v), {
        impact: v.impact || "", elements: v.nodes.length,
        targets: v.nodes.slice(0, 5).map((n) => n.target.flat(Infinity).join(" ")),
        summary: (v.nodes[0] && v.nodes[0].failureSummary) || "",
      })),
      passes: r.passes.map(rule),
      incomplete: r.incomplete.map(rule),
    });
  } finally {
    window.scrollTo(x, y);
  }
})()
