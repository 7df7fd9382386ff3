// LuceneBench is the Apache Lucene side of `openshelf bench` (package
// bench): it indexes the documents the bench exports and answers the
// same searches over loopback HTTP, with the same answer shape as the
// other systems, so that one load driver measures all of them.
//
// Built by the bench at run time with javac against Debian's
// liblucene8-java jars (/usr/share/java/lucene-*.jar).
//
//   java LuceneBench index DOCS.tsv INDEXDIR   build the index, print stats
//                                              (DOCS.tsv "-": standard input)
//   java LuceneBench serve INDEXDIR PORT       serve GET /search, /stats
//
// DOCS.tsv: one document a line, tab-separated: id, title, abstract,
// keywords, authors, year, license, topics, has_fulltext; list fields are
// joined by U+001F; the bench removes tabs and newlines from the text.
//
// Analysis matches ours as closely as Lucene allows: StandardTokenizer,
// lower case, ASCII folding, no stop words, no stemming; multi-valued
// fields (keywords, authors) get a position gap so that a phrase cannot
// span two values.
//
// GET /search?q=&limit=&facets=license,topic,year&sort=-year&cursor=
// parses q with the classic query parser over title^3 keyword^2 author
// abstract (default operator AND; field names as ours: title:, author:,
// keyword:, abstract:), counts the total exactly (no early termination:
// every system reports exact totals), pages deep with searchAfter, and
// counts facets with SortedSetDocValuesFacetCounts.
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.facet.FacetResult;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.LabelAndValue;
import org.apache.lucene.facet.sortedset.DefaultSortedSetDocValuesReaderState;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetCounts;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetField;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.MultiFieldQueryParser;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MultiCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopDocsCollector;
import org.apache.lucene.search.TopFieldCollector;
import org.apache.lucene.search.TopScoreDocCollector;
import org.apache.lucene.store.FSDirectory;

public class LuceneBench {
  static final String[] FIELDS = {"title", "keyword", "author", "abstract"};
  static final Map<String, Float> BOOSTS = Map.of("title", 3f, "keyword", 2f, "author", 1f, "abstract", 1f);

  static Analyzer analyzer() {
    return new Analyzer() {
      @Override
      protected TokenStreamComponents createComponents(String field) {
        Tokenizer t = new StandardTokenizer();
        TokenStream s = new ASCIIFoldingFilter(new LowerCaseFilter(t));
        return new TokenStreamComponents(t, s);
      }

      @Override
      public int getPositionIncrementGap(String field) {
        return 100;
      }
    };
  }

  static FacetsConfig facetsConfig() {
    FacetsConfig c = new FacetsConfig();
    c.setMultiValued("topic", true);
    return c;
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("index")) {
      index(Paths.get(args[1]), Paths.get(args[2]));
    } else if (args.length == 3 && args[0].equals("serve")) {
      serve(Paths.get(args[1]), Integer.parseInt(args[2]));
    } else {
      System.err.println("usage: LuceneBench index DOCS.tsv INDEXDIR | serve INDEXDIR PORT");
      System.exit(2);
    }
  }

  static void index(Path tsv, Path dir) throws IOException {
    long start = System.nanoTime();
    IndexWriterConfig iwc = new IndexWriterConfig(analyzer());
    iwc.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    iwc.setRAMBufferSizeMB(256);
    FacetsConfig fc = facetsConfig();
    long n = 0;
    try (IndexWriter w = new IndexWriter(FSDirectory.open(dir), iwc);
        BufferedReader r = tsv.toString().equals("-")
            ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20)
            : Files.newBufferedReader(tsv, StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) {
        String[] f = line.split("\t", -1);
        if (f.length < 9) {
          throw new IOException("line " + (n + 1) + ": " + f.length + " fields");
        }
        Document d = new Document();
        d.add(new StringField("id", f[0], Field.Store.YES));
        d.add(new TextField("title", f[1], Field.Store.NO));
        d.add(new TextField("abstract", f[2], Field.Store.NO));
        for (String k : split(f[3])) d.add(new TextField("keyword", k, Field.Store.NO));
        for (String a : split(f[4])) d.add(new TextField("author", a, Field.Store.NO));
        int year = f[5].isEmpty() ? 0 : Integer.parseInt(f[5]);
        d.add(new NumericDocValuesField("year_sort", year));
        if (year > 0) d.add(new SortedSetDocValuesFacetField("year", f[5]));
        if (!f[6].isEmpty()) d.add(new SortedSetDocValuesFacetField("license", f[6]));
        for (String t : split(f[7])) d.add(new SortedSetDocValuesFacetField("topic", t));
        d.add(new SortedSetDocValuesFacetField("fulltext", f[8]));
        w.addDocument(fc.build(d));
        n++;
        if (n % 1_000_000 == 0) System.err.println("lucene: indexed " + n);
      }
      w.forceMerge(1);
    }
    System.out.printf("indexed %d documents in %d ms%n", n, (System.nanoTime() - start) / 1_000_000);
  }

  static String[] split(String s) {
    return s.isEmpty() ? new String[0] : s.split("\u001f");
  }

  static void serve(Path dir, int port) throws IOException {
    DirectoryReader reader = DirectoryReader.open(FSDirectory.open(dir));
    IndexSearcher searcher = new IndexSearcher(reader);
    SortedSetDocValuesReaderState state = new DefaultSortedSetDocValuesReaderState(reader);
    HttpServer srv = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
    srv.setExecutor(Executors.newFixedThreadPool(4));
    srv.createContext("/stats", ex -> reply(ex, 200, "{\"documents\":" + reader.numDocs() + "}"));
    srv.createContext("/search", ex -> {
      try {
        reply(ex, 200, search(searcher, state, params(ex)));
      } catch (Exception e) {
        reply(ex, 400, "{\"error\":{\"code\":\"bad_query\",\"message\":" + quote(String.valueOf(e.getMessage())) + "}}");
      }
    });
    srv.start();
    System.out.println("READY " + port);
    System.out.flush();
  }

  static String search(IndexSearcher s, SortedSetDocValuesReaderState state, Map<String, String> p) throws Exception {
    MultiFieldQueryParser qp = new MultiFieldQueryParser(FIELDS, analyzer(), BOOSTS);
    qp.setDefaultOperator(QueryParser.AND_OPERATOR);
    Query q = qp.parse(p.getOrDefault("q", ""));
    int limit = Integer.parseInt(p.getOrDefault("limit", "10"));
    boolean byYear = "-year".equals(p.get("sort"));
    String cursor = p.getOrDefault("cursor", "");
    TopDocsCollector<?> top;
    if (byYear) {
      Sort sort = new Sort(new SortField("year_sort", SortField.Type.INT, true), SortField.FIELD_DOC);
      top = TopFieldCollector.create(sort, limit, null, Integer.MAX_VALUE);
    } else {
      ScoreDoc after = null;
      if (!cursor.isEmpty()) {
        String[] c = cursor.split(":");
        after = new ScoreDoc(Integer.parseInt(c[0]), Float.parseFloat(c[1]));
      }
      top = TopScoreDocCollector.create(limit, after, Integer.MAX_VALUE);
    }
    FacetsCollector fc = null;
    String facets = p.getOrDefault("facets", "");
    if (!facets.isEmpty()) {
      fc = new FacetsCollector();
      s.search(q, MultiCollector.wrap(top, fc));
    } else {
      s.search(q, top);
    }
    TopDocs td = top.topDocs();
    StringBuilder b = new StringBuilder(512);
    b.append("{\"total\":").append(td.totalHits.value).append(",\"items\":[");
    for (int i = 0; i < td.scoreDocs.length; i++) {
      if (i > 0) b.append(',');
      String id = s.doc(td.scoreDocs[i].doc).get("id");
      b.append("{\"id\":").append(quote(id));
      // Sorted by year, Lucene does not score: NaN is not JSON.
      if (!Float.isNaN(td.scoreDocs[i].score)) b.append(",\"score\":").append(td.scoreDocs[i].score);
      b.append('}');
    }
    b.append(']');
    if (!byYear && td.scoreDocs.length == limit) {
      ScoreDoc last = td.scoreDocs[td.scoreDocs.length - 1];
      b.append(",\"next_cursor\":\"").append(last.doc).append(':').append(last.score).append('"');
    }
    if (fc != null) {
      Facets counts = new SortedSetDocValuesFacetCounts(state, fc);
      b.append(",\"facets\":{");
      String[] names = facets.split(",");
      for (int i = 0; i < names.length; i++) {
        if (i > 0) b.append(',');
        b.append(quote(names[i])).append(":[");
        FacetResult r = counts.getTopChildren(100_000, names[i]);
        if (r != null) {
          for (int j = 0; j < r.labelValues.length; j++) {
            LabelAndValue lv = r.labelValues[j];
            if (j > 0) b.append(',');
            b.append("{\"value\":").append(quote(lv.label)).append(",\"count\":").append(lv.value).append('}');
          }
        }
        b.append(']');
      }
      b.append('}');
    }
    return b.append("}\n").toString();
  }

  static Map<String, String> params(HttpExchange ex) {
    Map<String, String> m = new HashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw == null) return m;
    for (String kv : raw.split("&")) {
      int i = kv.indexOf('=');
      if (i < 0) continue;
      m.put(URLDecoder.decode(kv.substring(0, i), StandardCharsets.UTF_8),
          URLDecoder.decode(kv.substring(i + 1), StandardCharsets.UTF_8));
    }
    return m;
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  static void reply(HttpExchange ex, int status, String body) throws IOException {
    byte[] out = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    ex.sendResponseHeaders(status, out.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(out);
    }
  }
}
