"""`dynarock graph export`, `import`, `stats` and `query`: the seed graphs written as
JSON, DOT and GraphML, embedded (--data) and over HTTP (--endpoint), with --svg
through Graphviz; what they hold, counted; and the seed articles' questions
(neighbours, k hops, shortest paths, common neighbours, degrees) asked from the
command line.

* a node's neighbourhood by hops, direction and types; the whole graph by Scan;
  --max-nodes truncation said in the JSON and on stderr;
* the table's conventions detected (seed 001's source/target keys, "-"
  separator, gsi0-index, edgeSet) and overridable;
* the same export embedded and over HTTP is the same bytes;
* GraphML parses as XML with the GraphML namespace; DOT draws with `dot`; an
  edge of a type opted out of the edge set is dashed;
* stats: nodes and edges by type, out-degrees, the largest edge sets and
  their share of the 400 KB item limit, as text and JSON, the same over HTTP;
* import: export -> import -> export gives the same bytes for every seed graph
  (ranks and edge-set membership as stored), `dynarock check` clean; JSON lines
  and CSV (quoted fields over two lines, numbers by --number, columns named by
  flags, --edge-type; a mapping file per file, bare ids given their node
  type) with bad records imported but for those, reported by
  file and line, exit 1; the same CSV into a new embedded table (table files)
  and over HTTP (BatchWriteItem) gives the same export; a file refused whole
  leaves no table behind; --resume: an import killed midway and run again
  skips what it wrote and ends with the graph a clean import gives, a progress
  file of another import, or of a table since deleted, refused;
* query: answers as the seeds give them, as text and JSON, the same over HTTP;
* query walk: seed 001's "who leads the goals Dora contributes to" by a rank
  condition and a pushed-down edge filter, with its plan and cost; seed 004's
  addresses as of a date; pages through cursors, a foreign cursor refused; the
  same answers over HTTP; bad steps refused;
* bad input: a missing table, an unknown format, a node id without separator,
  flags that need --node, no --data/--endpoint: a clear message and exit 1 or 2.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

import harness

GRAPHML = "{http://graphml.graphdrawing.org/xmlns}"


def dynarock(*args, check=True):
    out = subprocess.run([harness._find_binary(), *args], capture_output=True, text=True,
                         timeout=120)
    if check and out.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (" ".join(args), out.returncode, out.stderr))
    return out


class GraphExportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dynarock-graph-export-")
        cls.data = os.path.join(cls.tmp, "db")
        dynarock("graph", "demo", "--data", cls.data)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def export(self, *args):
        out = dynarock("graph", "export", "--data", self.data, *args)
        return out.stdout, out.stderr

    def test_neighbourhood_as_json(self):
        text, err = self.export("--table", "demo_middle_earth", "--node", "USER#Frodo",
                                "--direction", "out")
        g = json.loads(text)
        self.assertEqual({n["id"] for n in g["nodes"]},
                         {"USER#Frodo", "USER#Gandalf", "USER#Samwise", "PLACE#Gondor",
                          "PLACE#TheShire"})
        self.assertTrue(all(e["source"] == "USER#Frodo" for e in g["edges"]))
        self.assertEqual(len(g["edges"]), 4)
        frodo = next(n for n in g["nodes"] if n["id"] == "USER#Frodo")
        self.assertEqual((frodo["depth"], frodo["type"]), (0, "USER"))
        self.assertEqual(frodo["attributes"]["firstName"], {"S": "Frodo"})
        self.assertIn("5 nodes, 4 edges", err)
        friends = json.loads(self.export("--table", "demo_middle_earth", "--node", "USER#Frodo",
                                         "--types", "FRIEND", "--direction", "out")[0])
        self.assertEqual({e["type"] for e in friends["edges"]}, {"FRIEND"})
        self.assertEqual(sorted(e["rank"] for e in friends["edges"]), ["3004", "UNKNOWN"])

    def test_whole_graph_and_detected_conventions(self):
        g = json.loads(self.export("--table", "demo_records")[0])
        self.assertEqual(g["schema"]["pk"], "source")
        self.assertEqual(g["schema"]["separator"], "-")
        self.assertEqual(g["schema"]["inverted_index"], "gsi0-index")
        self.assertEqual(g["schema"]["edge_set_attribute"], "edgeSet")
        self.assertEqual(len(g["nodes"]), 8)
        self.assertIn("GOALSUBSCRIBER", g["edge_types"])
        sub = [e for e in g["edges"] if e["type"] == "GOALSUBSCRIBER"]
        self.assertTrue(sub and not any(e["in_edge_set"] for e in sub))
        self.assertTrue(all(e["in_edge_set"] for e in g["edges"] if e["type"] == "GOALMEMBERSHIP"))
        self.assertFalse(g["truncated"])
        capped, err = self.export("--table", "demo_records", "--max-nodes", "3")
        capped = json.loads(capped)
        self.assertLessEqual(len(capped["nodes"]), 3)
        self.assertTrue(capped["truncated"])
        self.assertIn("truncated", err)
        # A wrong override is used as given: no edge set named so, none in it.
        over = json.loads(self.export("--table", "demo_records", "--edge-set-attribute", "nothing")[0])
        self.assertFalse(any(e["in_edge_set"] for e in over["edges"]))

    def test_graphml_dot_and_svg(self):
        out = os.path.join(self.tmp, "koan.graphml")
        self.export("--table", "demo_records", "--format", "graphml", "--out", out)
        root = ET.parse(out).getroot()
        self.assertEqual(root.tag, GRAPHML + "graphml")
        nodes = root.findall(".//%snode" % GRAPHML)
        edges = root.findall(".//%sedge" % GRAPHML)
        self.assertEqual(len(nodes), 8)
        self.assertEqual({(e.get("source"), e.get("target")) for e in edges
                          if e.find("%sdata[@key='etype']" % GRAPHML).text == "GOALSUBSCRIBER"},
                         {("GOAL-G1", "USER-U3")})
        dot, _ = self.export("--table", "demo_records", "--format", "dot")
        self.assertTrue(dot.startswith('digraph "demo_records" {'))
        self.assertIn('"GOAL-G1" -> "USER-U3" [label="GOALSUBSCRIBER", style=dashed];', dot)
        if shutil.which("dot") is None:
            self.skipTest("Graphviz's dot is not installed (scripts/install-deps.sh installs it)")
        svg = os.path.join(self.tmp, "koan.svg")
        self.export("--table", "demo_records", "--svg", svg, "--out", os.devnull)
        with open(svg) as f:
            drawn = f.read()
        self.assertIn("<svg", drawn)
        self.assertIn("GOAL&#45;G1", drawn)

    def test_same_export_over_http(self):
        proc, url = harness.launch(extra_args=["--shared-db"])
        try:
            dynarock("graph", "demo", "--endpoint", url)
            args = ["--table", "demo_middle_earth", "--node", "USER#Samwise", "--hops", "2"]
            remote = dynarock("graph", "export", "--endpoint", url, *args).stdout
            local = self.export(*args)[0]
            self.assertEqual(remote, local)
            whole = dynarock("graph", "export", "--endpoint", url, "--table", "demo_Contact",
                             "--format", "graphml").stdout
            local_whole = self.export("--table", "demo_Contact", "--format", "graphml")[0]
            self.assertEqual(whole, local_whole)
            exported = os.path.join(self.tmp, "records.json")
            self.export("--table", "demo_records", "--out", exported)
            dynarock("graph", "import", exported, "--endpoint", url, "--table", "records_copy")
            self.assertEqual(dynarock("graph", "export", "--endpoint", url, "--table", "records_copy").stdout,
                             self.export("--table", "demo_records")[0].replace("demo_records", "records_copy"))
            for cmd in (["graph", "stats", "--table", "demo_records", "--format", "json"],
                        ["graph", "query", "path", "USER-U2", "USER-U3", "--direction", "both",
                         "--table", "demo_records", "--format", "json"]):
                self.assertEqual(dynarock(*cmd, "--endpoint", url).stdout,
                                 dynarock(*cmd, "--data", self.data).stdout)
        finally:
            harness.stop_process(proc)

    def test_stats(self):
        out = dynarock("graph", "stats", "--data", self.data, "--table", "demo_records").stdout
        self.assertIn('separator "-"', out)
        self.assertIn("nodes       8: GOAL 3, TEAM 2, USER 3", out)
        self.assertIn("edges       9: GOALMEMBERSHIP 8, GOALSUBSCRIBER 1", out)
        self.assertRegex(out, r"GOAL-G1 +3 entries")
        j = json.loads(dynarock("graph", "stats", "--data", self.data, "--table", "demo_middle_earth",
                                "--format", "json", "--top", "1").stdout)
        self.assertEqual((j["nodes"], j["edges"]), (5, 9))
        self.assertEqual(j["edges_by_type"], {"FRIEND": 3, "VISITED": 6})
        self.assertEqual(j["out_degrees"], {"0": 2, "2": 1, "3": 1, "4": 1})
        self.assertEqual(len(j["largest_edge_sets"]), 1)
        top = j["largest_edge_sets"][0]
        self.assertEqual((top["node"], top["entries"]), ("USER#Frodo", 4))
        self.assertAlmostEqual(top["item_limit_fraction"], top["item_bytes"] / 409600)
        for args, code, words in (
                (["--table", "nope"], 1, "ResourceNotFoundException"),
                (["--table", "demo_records", "--format", "xml"], 2, "--format"),
                (["--table", "demo_records", "--top", "-1"], 2, "--top"),
                ([], 2, "--table is required")):
            r = dynarock("graph", "stats", "--data", self.data, *args, check=False)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(words, r.stderr)

    def query(self, *args, fmt="json"):
        out = dynarock("graph", "query", *args, "--data", self.data, "--format", fmt).stdout
        return json.loads(out) if fmt == "json" else out

    def test_query(self):
        # Seed 000: who considers Gandalf a friend; the places both hobbits visited.
        n = self.query("neighbours", "USER#Gandalf", "--direction", "in", "--types", "FRIEND",
                       "--table", "demo_middle_earth")
        self.assertEqual({x["id"] for x in n["nodes"]}, {"USER#Frodo", "USER#Samwise"})
        self.assertTrue(all(e["type"] == "FRIEND" and e["target"] == "USER#Gandalf" for e in n["edges"]))
        common = self.query("common", "USER#Frodo", "USER#Samwise", "--type", "VISITED",
                            "--table", "demo_middle_earth")
        self.assertEqual(common["nodes"], ["PLACE#Gondor", "PLACE#TheShire"])
        # Seed 001: a user's goals one hop in, their fellow members two.
        k = self.query("khop", "USER-U1", "--hops", "2", "--table", "demo_records")
        hops = {x["id"]: x["hops"] for x in k["nodes"]}
        self.assertEqual(hops["GOAL-G1"], 1)
        self.assertEqual(hops["USER-U2"], 2)
        # Paths: by direction; the shortest of several; none within the bound.
        p = self.query("path", "USER-U2", "USER-U3", "--direction", "both", "--table", "demo_records")
        self.assertTrue(p["found"])
        self.assertEqual(p["hops"], 2)
        self.assertEqual((p["nodes"][0], p["nodes"][-1]), ("USER-U2", "USER-U3"))
        self.assertEqual(len(p["edges"]), 2)
        out = self.query("path", "USER-U2", "USER-U3", "--table", "demo_records")
        self.assertFalse(out["found"])  # edges point from goals to users: no way out of U2
        text = self.query("path", "USER#Samwise", "PLACE#Gondor", "--table", "demo_middle_earth", fmt="table")
        self.assertEqual(text, "1 hop: USER#Samwise -VISITED-> PLACE#Gondor\n")
        text = self.query("path", "USER#Gandalf", "USER#Frodo", "--direction", "in",
                          "--table", "demo_middle_earth", fmt="table")
        self.assertEqual(text, "1 hop: USER#Gandalf <-FRIEND- USER#Frodo\n")
        d = self.query("degree", "USER#Gandalf", "--table", "demo_middle_earth")
        self.assertEqual((d["out"], d["in"]), (2, 2))
        self.assertEqual(d["in_by_type"], {"FRIEND": 2})
        for args, words in ((["path", "USER#Frodo"], "takes 2 node ids"),
                            (["common", "USER#Frodo", "USER#Samwise"], "--type"),
                            (["wander", "USER#Frodo"], "unknown question"),
                            (["khop", "USER#Frodo", "--hops", "11"], "--hops"),
                            (["path", "USER#Frodo", "X#Y", "--max-hops", "0"], "--max-hops")):
            r = dynarock("graph", "query", *args, "--table", "demo_middle_earth", "--data", self.data,
                         check=False)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(words, r.stderr)
        r = dynarock("graph", "query", "degree", "nosep", "--table", "demo_middle_earth",
                     "--data", self.data, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("ValidationException", r.stderr)

    def test_import_round_trip(self):
        other = os.path.join(self.tmp, "imported")
        for table in ("demo_middle_earth", "demo_records", "demo_users", "demo_Contact"):
            first = os.path.join(self.tmp, table + ".json")
            self.export("--table", table, "--out", first)
            r = dynarock("graph", "import", first, "--data", other, "--table", table)
            self.assertRegex(r.stderr, r"\d+ nodes, \d+ edges, \d+ items written\n")
            again = dynarock("graph", "export", "--data", other, "--table", table).stdout
            with open(first) as f:
                self.assertEqual(again, f.read(), table)
        self.assertEqual(dynarock("check", "--data", other).returncode, 0)

    def test_import_json_lines(self):
        other = os.path.join(self.tmp, "lines")
        lines = os.path.join(self.tmp, "people.jsonl")
        with open(lines, "w") as f:
            f.write('{"node": "P#ann", "attributes": {"name": {"S": "Ann"}}}\n'
                    '\n'
                    '{"node": "P#bob"}\n'
                    'not json\n'
                    '{"source": "P#ann", "type": "KNOWS", "target": "P#bob", "properties": {"since": {"N": "2020"}}}\n'
                    '{"source": "P#ann", "type": "BAD#TYPE", "target": "P#bob"}\n'
                    '{"node": "P#cid", "attributes": {"age": {"N": "x"}}}\n'
                    '{"what": 1}\n')
        r = dynarock("graph", "import", lines, "--data", other, "--table", "people", check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        for n in (4, 6, 7, 8):
            self.assertIn("people.jsonl:%d: " % n, r.stderr)
        self.assertIn("2 nodes, 1 edges", r.stderr)
        self.assertIn("4 refused", r.stderr)
        g = json.loads(dynarock("graph", "export", "--data", other, "--table", "people").stdout)
        self.assertEqual([n["id"] for n in g["nodes"]], ["P#ann", "P#bob"])
        self.assertEqual(g["edges"][0]["attributes"], {"since": {"N": "2020"}})
        self.assertTrue(g["edges"][0]["in_edge_set"])
        self.assertEqual(dynarock("graph", "import", lines, "--table", "people", check=False).returncode, 2)
        bad = dynarock("graph", "import", os.path.join(self.tmp, "missing.json"), "--data", other,
                       "--table", "people", check=False)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("cannot read", bad.stderr)

    def test_import_csv(self):
        nodes = os.path.join(self.tmp, "people.csv")
        edges = os.path.join(self.tmp, "knows.csv")
        with open(nodes, "w") as f:
            f.write('id,name,age\r\n'
                    'P#ann,Ann,31\r\n'
                    'P#bob,"Bob, ""the builder""",40\r\n'
                    'P#cid,Cid,old\r\n'
                    ',Nobody,1\r\n'
                    'P#dee,"Dee\nof two lines",\r\n')
        with open(edges, "w") as f:
            f.write('from;to;since\n'
                    'P#ann;P#bob;2020\n'
                    'P#bob;P#dee;2021\n'
                    'P#ann;;2022\n'
                    'P#dee;P#ann;\n')
        flags = ["--table", "people", "--number", "age,since"]
        edge_flags = ["--source", "from", "--target", "to", "--edge-type", "KNOWS", "--delimiter", ";"]
        embedded = os.path.join(self.tmp, "csv-embedded")
        r = dynarock("graph", "import", nodes, "--data", embedded, *flags, check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("people.csv:4: The parameter cannot be converted to a numeric value: old", r.stderr)
        self.assertIn("people.csv:5: no node id (column id)", r.stderr)
        self.assertIn("3 nodes, 0 edges", r.stderr)
        r = dynarock("graph", "import", edges, "--data", embedded, *flags, *edge_flags, check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("knows.csv:4: an edge needs a source and a target (columns from and to)", r.stderr)
        self.assertIn("0 nodes, 3 edges", r.stderr)
        g = json.loads(dynarock("graph", "export", "--data", embedded, "--table", "people").stdout)
        by_id = {n["id"]: n for n in g["nodes"]}
        self.assertEqual(sorted(by_id), ["P#ann", "P#bob", "P#dee"])
        self.assertEqual(by_id["P#bob"]["attributes"], {"name": {"S": 'Bob, "the builder"'}, "age": {"N": "40"}})
        self.assertEqual(by_id["P#dee"]["attributes"], {"name": {"S": "Dee\nof two lines"}})
        self.assertEqual([(e["source"], e["type"], e["target"], e["attributes"]) for e in g["edges"]],
                         [("P#ann", "KNOWS", "P#bob", {"since": {"N": "2020"}}),
                          ("P#bob", "KNOWS", "P#dee", {"since": {"N": "2021"}}),
                          ("P#dee", "KNOWS", "P#ann", {})])
        self.assertEqual(dynarock("check", "--data", embedded).returncode, 0)

        # Both files at once: into a new embedded table (table files) and over
        # HTTP (BatchWriteItem), the same graph.
        together = os.path.join(self.tmp, "csv-together")
        args = [nodes, edges, *flags, *edge_flags[:4], "--edge-type", "KNOWS"]
        semicolons = os.path.join(self.tmp, "knows-commas.csv")
        with open(edges) as f, open(semicolons, "w") as out:
            out.write(f.read().replace(";", ","))
        args[1] = semicolons
        r = dynarock("graph", "import", *args, "--data", together, check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("3 nodes, 3 edges", r.stderr)
        local = dynarock("graph", "export", "--data", together, "--table", "people").stdout
        self.assertEqual(json.loads(local)["edges"], g["edges"])
        proc, url = harness.launch(extra_args=["--shared-db"])
        try:
            r = dynarock("graph", "import", *args, "--endpoint", url, check=False)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(dynarock("graph", "export", "--endpoint", url, "--table", "people").stdout, local)
        finally:
            harness.stop_process(proc)

        # A file refused whole (no id column, no edge columns) leaves no table.
        odd = os.path.join(self.tmp, "odd.csv")
        with open(odd, "w") as f:
            f.write("a,b\n1,2\n")
        empty = os.path.join(self.tmp, "csv-refused")
        r = dynarock("graph", "import", nodes, odd, "--data", empty, "--table", "people", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("odd.csv: the header has no node id column (id) and no edge columns", r.stderr)
        listed = dynarock("graph", "stats", "--data", empty, "--table", "people", check=False)
        self.assertEqual(listed.returncode, 1)
        self.assertIn("ResourceNotFoundException", listed.stderr)
        self.assertEqual(dynarock("graph", "import", nodes, "--format", "xml", "--data", empty,
                                  "--table", "people", check=False).returncode, 2)

    def test_import_csv_mapping(self):
        # Bare ids (a user id, not USER#...), odd column names, one file with
        # semicolons: a mapping file says it per file; the flags fill in the rest.
        people = os.path.join(self.tmp, "users.csv")
        follows = os.path.join(self.tmp, "follows.csv")
        mapping = os.path.join(self.tmp, "mapping.json")
        with open(people, "w") as f:
            f.write("user_id,name,age\n1,Ann,31\n2,Bob,40\n")
        with open(follows, "w") as f:
            f.write("from;to;since\n1;2;2019\n2;1;2020\n")
        with open(mapping, "w") as f:
            json.dump({"numbers": ["age"], "files": {
                "users.csv": {"id": "user_id"},
                "follows.csv": {"delimiter": ";", "source": "from", "target": "to",
                                "source_type": "USER", "target_type": "USER",
                                "numbers": ["since"]}}}, f)
        data = os.path.join(self.tmp, "csv-mapped")
        r = dynarock("graph", "import", people, follows, "--mapping", mapping, "--id-type", "USER",
                     "--edge-type", "FOLLOWS", "--table", "social", "--data", data)
        self.assertIn("2 nodes, 2 edges", r.stderr)
        g = json.loads(dynarock("graph", "export", "--data", data, "--table", "social").stdout)
        self.assertEqual({n["id"]: n["attributes"] for n in g["nodes"]},
                         {"USER#1": {"name": {"S": "Ann"}, "age": {"N": "31"}},
                          "USER#2": {"name": {"S": "Bob"}, "age": {"N": "40"}}})
        self.assertEqual([(e["source"], e["type"], e["target"], e["attributes"]) for e in g["edges"]],
                         [("USER#1", "FOLLOWS", "USER#2", {"since": {"N": "2019"}}),
                          ("USER#2", "FOLLOWS", "USER#1", {"since": {"N": "2020"}})])
        # A mapping with a mistake is refused before anything is written.
        with open(mapping, "w") as f:
            json.dump({"files": {"users.csv": {"id_column": "user_id"}}}, f)
        r = dynarock("graph", "import", people, "--mapping", mapping, "--table", "other",
                     "--data", data, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn('files["users.csv"]: unknown member "id_column"', r.stderr)
        self.assertEqual(dynarock("graph", "stats", "--data", data, "--table", "other",
                                  check=False).returncode, 1)

    def test_import_resume(self):
        lines = os.path.join(self.tmp, "ring.jsonl")
        with open(lines, "w") as f:
            for i in range(20000):
                f.write(json.dumps({"source": "R#%d" % i, "type": "NEXT", "target": "R#%d" % ((i + 1) % 20000),
                                    "properties": {"i": {"N": str(i)}}}) + "\n")
        state = os.path.join(self.tmp, "ring.progress")
        proc, url = harness.launch(extra_args=["--shared-db"])
        try:
            where = ["--endpoint", url]
            dynarock("graph", "import", lines, "--table", "ring_clean", *where)
            # Killed midway, once the progress file says some edges are written.
            cmd = [harness._find_binary(), "graph", "import", lines, "--table", "ring", "--threads", "1",
                   "--resume", state, *where]
            first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            done = 0
            for _ in range(600):
                if os.path.exists(state):
                    try:
                        with open(state) as f:
                            done = json.load(f)["done"]
                    except ValueError:
                        done = 0
                    if done > 0:
                        break
                if first.poll() is not None:
                    break
                time.sleep(0.01)
            first.kill()
            first.wait()
            # The import may have written more between that read and the kill:
            # what it resumes from is the progress file as the kill left it.
            if os.path.exists(state):
                with open(state) as f:
                    done = json.load(f)["done"]
            r = dynarock("graph", "import", lines, "--table", "ring", "--threads", "1", "--resume", state, *where)
            sys.stderr.write("(killed with %d of 20000 records' edges written) " % done)
            if done > 0 and done < 20000:
                self.assertIn("resuming: the edges of the first %d records were written" % done, r.stderr)
            self.assertFalse(os.path.exists(state))
            clean = json.loads(dynarock("graph", "export", "--table", "ring_clean", *where).stdout)
            resumed = json.loads(dynarock("graph", "export", "--table", "ring", *where).stdout)
            self.assertEqual(len(resumed["edges"]), 20000)
            self.assertEqual(resumed["nodes"], clean["nodes"])
            self.assertEqual(resumed["edges"], clean["edges"])

            # A progress file of another import (another file size) is refused.
            with open(state, "w") as f:
                json.dump({"table": "ring", "files": [[lines, 1]], "done": 5}, f)
            r = dynarock("graph", "import", lines, "--table", "ring", "--resume", state, *where, check=False)
            self.assertEqual(r.returncode, 1)
            self.assertIn("records another import", r.stderr)
            # A progress file saying 19,990 records are written: refused while
            # the table does not exist (those edges would be lost), then only
            # the last ten edges are sent (into a table that does not have the
            # others, so they are absent).
            with open(state, "w") as f:
                json.dump({"table": "ring_tail", "files": [[lines, os.path.getsize(lines)]], "done": 19990}, f)
            r = dynarock("graph", "import", lines, "--table", "ring_tail", "--resume", state, *where, check=False)
            self.assertEqual(r.returncode, 1)
            self.assertIn("records an import into ring_tail, which no longer exists", r.stderr)
            empty = os.path.join(self.tmp, "empty.jsonl")
            open(empty, "w").close()
            dynarock("graph", "import", empty, "--table", "ring_tail", *where)
            r = dynarock("graph", "import", lines, "--table", "ring_tail", "--resume", state, *where)
            self.assertIn("0 nodes, 20000 edges", r.stderr)
            stats = json.loads(dynarock("graph", "stats", "--table", "ring_tail", "--format", "json", *where).stdout)
            self.assertEqual(stats["edges"], 10)
        finally:
            harness.stop_process(proc)

    def walk(self, *args, where=None, check=True):
        place = where or ["--data", self.data]
        return dynarock("graph", "query", "walk", *args, *place, check=check)

    def test_query_walk(self):
        koan = ["--table", "demo_records"]
        leads = ["USER-U1", "--step", "in:GOALMEMBERSHIP", "--key", "= 400-CONTRIBUTOR",
                 "--step", "out:GOALMEMBERSHIP", "--edge-filter", "#r = :lead",
                 "--names", '{"#r": "memberRole"}', "--values", '{":lead": {"S": "LEAD"}}', *koan]
        out = self.walk(*leads, "--plan").stdout
        self.assertTrue(out.startswith("USER-U3\n\nplan and cost:\n"), out)
        self.assertIn("index gsi0-index", out)
        self.assertIn("FilterExpression: #r = :lead", out)
        self.assertIn("  total: 3 requests, 5 items read, 1.5 RCU", out)
        j = json.loads(self.walk(*leads, "--plan", "--format", "json").stdout)
        self.assertEqual(j["Results"], ["USER-U3"])
        self.assertEqual(j["Levels"], [["USER-U1"], ["GOAL-G3"], ["USER-U3"]])
        self.assertEqual([s["Requests"] for s in j["Steps"]], [1, 1, 1])
        self.assertEqual(j["Steps"][2]["ItemsRead"], 3)

        # Seed 004: who shared an address with Bob in mid-2005, and in 2009.
        contact = ["--table", "demo_Contact", "--valid-from", "StartTimestampUTC",
                   "--valid-to", "EndTimestampUTC"]
        mid_2005, mid_2009 = "1117584000", "1243814400"
        shared = lambda at: self.walk("Person#bob", "--step", "out:PersonAddress", "--valid-at", at,
                                      "--step", "in:PersonAddress", "--valid-at", at, *contact).stdout
        self.assertEqual(shared(mid_2005), "Person#sally\n")
        self.assertEqual(sorted(shared(mid_2009).split()), ["Person#joe", "Person#sally"])

        # Pages: a cursor continues its own walk, and only its own.
        members = ["GOAL-G1", "--step", "out:GOALMEMBERSHIP", "--step", "in:GOALMEMBERSHIP", *koan]
        whole = self.walk(*members).stdout.split()
        self.assertEqual(whole, ["GOAL-G2", "GOAL-G3"])
        first = self.walk(*members, "--limit", "1").stdout.splitlines()
        self.assertEqual(first[0], "GOAL-G2")
        self.assertTrue(first[1].startswith("more: --cursor "), first)
        cursor = first[1].split()[-1]
        self.assertEqual(self.walk(*members, "--limit", "1", "--cursor", cursor).stdout, "GOAL-G3\n")
        foreign = self.walk("GOAL-G2", *members[1:], "--cursor", cursor, check=False)
        self.assertEqual(foreign.returncode, 1)
        self.assertIn("does not belong to this traversal", foreign.stderr)

        # Over HTTP: the same answers and costs.
        proc, url = harness.launch(extra_args=["--shared-db"])
        try:
            dynarock("graph", "demo", "--endpoint", url)
            remote = json.loads(self.walk(*leads, "--plan", "--format", "json",
                                          where=["--endpoint", url]).stdout)
            self.assertEqual(remote, j)
        finally:
            harness.stop_process(proc)

        cases = [
            (["GOAL-G1", "--key", "= x", *koan], 2, "give --step first"),
            (["GOAL-G1", "--step", "in", *koan], 2, "an in step names its edge types"),
            (["GOAL-G1", "--step", "up:X", *koan], 2, "--step is out:TYPES or in:TYPES"),
            (["GOAL-G1", "--step", "out", "--key", "~ x", *koan], 2, "--key's operator"),
            (["GOAL-G1", *koan], 2, "expected at least one --step"),
            (["GOAL-G9", "--step", "out", *koan], 1, "ResourceNotFoundException: graph: the start node GOAL-G9"),
            (["GOAL-G1", "--step", "out:GOALMEMBERSHIP", "--edge-filter", "#r = ", "--names",
              '{"#r": "memberRole"}', *koan], 1, "the edge filter is not valid"),
            (["GOAL-G1", "--step", "out:GOALMEMBERSHIP,GOALSUBSCRIBER", "--key", "= USER-U1", *koan], 1,
             "a key condition applies to one edge type"),
        ]
        for args, code, words in cases:
            r = self.walk(*args, check=False)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(words, r.stderr, args)
            self.assertEqual(r.stdout, "", args)

    def test_bad_input(self):
        base = [harness._find_binary(), "graph", "export"]
        cases = [
            (["--data", self.data, "--table", "nope"], 1, "ResourceNotFoundException"),
            (["--data", self.data, "--table", "demo_users", "--format", "png"], 2, "--format"),
            (["--data", self.data, "--table", "demo_users", "--node", "nosep"], 1, "ValidationException"),
            (["--data", self.data, "--table", "demo_users", "--hops", "2"], 2, "go with --node"),
            (["--data", self.data, "--table", "demo_users", "--node", "USER#Alice", "--hops", "0"], 2, "--hops"),
            (["--table", "demo_users"], 2, "--endpoint URL or --data DIR"),
            (["--data", self.data], 2, "--table is required"),
        ]
        for args, code, words in cases:
            out = subprocess.run(base + args, capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, code, (args, out.stderr))
            self.assertIn(words, out.stderr, args)
            self.assertEqual(out.stdout, "", args)


if __name__ == "__main__":
    unittest.main()
