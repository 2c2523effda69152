"""`dynarock shell`, as a person uses it: statements with -c and from a script
on standard input (exit status 1 when one failed), and interactively in a real
terminal (tmux): a prompt, results as an aligned table, history with the Up key
(kept across sessions) and tab completion of commands and table names.

Run standalone: python3 tests/e2e/test_shell.py
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

BIN = harness._find_binary()


def shell(*args, stdin=None, home=None):
    env = dict(os.environ, HOME=home or tempfile.gettempdir())
    return subprocess.run([BIN, "shell", *args], input=stdin, capture_output=True, text=True,
                          timeout=60, env=env)


class ShellCase(unittest.TestCase):
    """A data directory with a table the shell opens."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dynarock-shell-")
        self.data = os.path.join(self.dir, "data")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def create_table(self):
        # PartiQL has no DDL in DynamoDB: the table is made through `serve` on the
        # same directory, which the shell then opens.
        proc, url = harness.launch(data_dir=self.data)
        try:
            c = harness.client(url)
            c.create_table(TableName="music", BillingMode="PAY_PER_REQUEST",
                           KeySchema=[{"AttributeName": "artist", "KeyType": "HASH"},
                                      {"AttributeName": "song", "KeyType": "RANGE"}],
                           AttributeDefinitions=[{"AttributeName": "artist", "AttributeType": "S"},
                                                 {"AttributeName": "song", "AttributeType": "S"}])
        finally:
            harness.stop_process(proc)


class NonInteractiveTest(ShellCase):
    def test_commands_and_exit_status(self):
        self.create_table()
        r = shell("--data", self.data,
                  "-c", "INSERT INTO music VALUE {'artist': 'Acme', 'song': 'Hi', 'year': 1999, "
                        "'tags': <<'a', 'b'>>}",
                  "-c", "SELECT * FROM music WHERE artist = 'Acme'",
                  "-c", ".tables")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "ok")
        self.assertEqual(lines[1], "artist | song | tags         | year")
        self.assertEqual(lines[3], "'Acme' | 'Hi' | <<'a', 'b'>> | 1999")
        self.assertEqual(lines[4], "(1 item)")
        self.assertEqual(lines[5], "music")
        r = shell("--data", self.data, "-c", "SELECT * FRM music")
        self.assertEqual(r.returncode, 1)
        self.assertIn("ValidationException: Statement wasn't well formed", r.stderr)

    def test_script_on_stdin(self):
        self.create_table()
        script = ("-- load two songs\n"
                  "INSERT INTO music VALUE {'artist': 'A', 'song': '1'};\n"
                  "INSERT INTO music\n  VALUE {'artist': 'A', 'song': '2'};\n"
                  ".format jsonl\n"
                  "SELECT song FROM music WHERE artist = 'A';\n")
        r = shell("--data", self.data, stdin=script)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["ok", "ok", '{"song":{"S":"1"}}', '{"song":{"S":"2"}}'])
        r = shell("--data", self.data, stdin="INSERT INTO music VALUE {'artist': 'A', 'song': '1'};\n"
                                              ".describe music\n")
        self.assertEqual(r.returncode, 1)  # the duplicate failed; the script went on
        self.assertIn("DuplicateItemException", r.stderr)
        self.assertIn("key:       artist (HASH), song (RANGE)", r.stdout)


class ExplainExportImportTest(ShellCase):
    def test_explain(self):
        self.create_table()
        r = shell("--data", self.data,
                  "-c", ".explain SELECT * FROM music WHERE artist = 'A' AND song > 'b' AND plays > 3",
                  "-c", ".explain SELECT * FROM music WHERE artist = ? AND song = ?",
                  "-c", ".explain SELECT * FROM music WHERE plays > 3",
                  "-c", ".explain UPDATE music SET plays = plays + 1 WHERE artist = 'A' AND song = 'x'")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("plan:     Query on music", out)
        self.assertIn("key:      artist = 'A' AND song > 'b'", out)
        self.assertIn("filter:   (plays > 3)", out)
        self.assertIn("plan:     GetItem on music", out)
        self.assertIn("plan:     Scan on music", out)
        self.assertIn("warning:  this statement scans the whole table", out)
        self.assertIn("plan:     UpdateItem on music", out)
        self.assertIn("key:      artist = 'A' AND song = 'x'", out)
        self.assertIn("update:   SET plays = plays + 1", out)
        self.assertIn("condition: attribute_exists(artist)", out)

    def test_export_then_import(self):
        self.create_table()
        dump = os.path.join(self.dir, "music.jsonl")
        r = shell("--data", self.data,
                  "-c", "INSERT INTO music VALUE {'artist': 'A', 'song': '1', 'b': <<1, 2>>}",
                  "-c", "INSERT INTO music VALUE {'artist': 'B', 'song': '2'}",
                  "-c", ".export music " + dump,
                  "-c", "DELETE FROM music WHERE artist = 'A' AND song = '1'",
                  "-c", "DELETE FROM music WHERE artist = 'B' AND song = '2'",
                  "-c", ".import " + dump + " music",
                  "-c", "SELECT * FROM music WHERE artist = 'A'")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("exported 2 items", r.stdout)
        self.assertIn("imported 2 items", r.stdout)
        self.assertIn("'A'    | <<1, 2>> | '1'", r.stdout)


@unittest.skipIf(shutil.which("tmux") is None, "tmux is not installed")
class TerminalTest(ShellCase):
    """A real terminal: tmux runs the shell, keys are sent, the screen is read."""

    def setUp(self):
        super().setUp()
        self.session = "dynarock-shell-%d" % os.getpid()
        self.env = dict(os.environ, HOME=self.dir, TERM="xterm")
        self.env.pop("PAGER", None)

    def tearDown(self):
        subprocess.run(["tmux", "kill-session", "-t", self.session], capture_output=True)
        super().tearDown()

    def start(self, *args):
        # -e: a tmux server already running (another session of the user's)
        # would otherwise give the shell its own environment, HOME included.
        subprocess.run(["tmux", "new-session", "-d", "-s", self.session, "-x", "120", "-y", "40",
                        "-e", "HOME=" + self.dir, "-e", "TERM=xterm",
                        BIN, "shell", *(args or ("--in-memory",))], check=True, env=self.env)
        self.wait_for("dynarock>")

    def type(self, text):
        # -l: the text literally, not as key names (avoid a trailing ";": tmux
        # parses it as a command separator before -l applies).
        subprocess.run(["tmux", "send-keys", "-t", self.session, "-l", text], check=True)

    def press(self, *keys):
        subprocess.run(["tmux", "send-keys", "-t", self.session, *keys], check=True)

    def screen(self):
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.session],
                              capture_output=True, text=True, check=True).stdout

    def wait_for(self, text, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = self.screen()
            if text in s:
                return s
            time.sleep(0.1)
        self.fail("%r never appeared; the screen:\n%s" % (text, self.screen()))

    def test_prompt_table_history_and_completion(self):
        self.start()
        # No table exists in memory; an error is shown and the shell goes on.
        self.type("SELECT * FROM nosuch")
        self.press("Enter")
        self.wait_for("Cannot do operations on a non-existent table")
        # Tab completes a dot-command.
        self.type(".tab")
        self.press("Tab")
        self.wait_for("dynarock> .tables")
        self.press("Enter")
        # Up recalls the previous statement.
        self.press("Up", "Up")
        self.wait_for("dynarock> SELECT * FROM nosuch")
        self.press("C-u")
        self.type(".quit")
        self.press("Enter")
        deadline = time.time() + 10
        while time.time() < deadline and subprocess.run(
                ["tmux", "has-session", "-t", self.session], capture_output=True).returncode == 0:
            time.sleep(0.1)
        # History is kept across sessions.
        with open(os.path.join(self.dir, ".dynarock_history")) as f:
            # libedit's file format escapes spaces as \040.
            self.assertIn("SELECT * FROM nosuch", f.read().replace("\\040", " "))

    def test_long_results_go_through_the_pager(self):
        if shutil.which("less") is None:
            self.skipTest("less is not installed")
        self.create_table()
        inserts = []
        for i in range(60):
            inserts += ["-c", "INSERT INTO music VALUE {'artist': 'A', 'song': '%02d'}" % i]
        self.assertEqual(shell("--data", self.data, *inserts).returncode, 0)
        self.start("--data", self.data)
        self.type("SELECT * FROM music WHERE artist = 'A'")
        self.press("Enter")
        screen = self.wait_for("'A'    | '30'")  # a screenful, held by the pager
        self.assertNotIn("(60 items)", screen)
        self.press("G")  # the pager's end
        self.wait_for("(60 items)")
        self.press("q")
        # Back at an empty prompt (capture-pane drops trailing spaces).
        deadline = time.time() + 10
        while time.time() < deadline:
            lines = [l for l in self.screen().splitlines() if l.strip()]
            if lines and lines[-1] == "dynarock>":
                break
            time.sleep(0.1)
        self.assertEqual(lines[-1], "dynarock>", self.screen())


if __name__ == "__main__":
    unittest.main(verbosity=2)
