/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The reproducible bundle: one zip that runs the analysis again without Assay. Under a folder
 * named after the session: the notebook and the PDF report (the other writers, on the same
 * snapshot), analysis.py (the cells that succeeded, each as a Python string literal, never
 * pasted as code), datasets.sha256, environment.txt (the sandbox image's package versions),
 * a README and, when asked for, the datasets. With SQL cells, the loader of their results
 * (assay_frames.py) and the statement check analysis.py applies before it asks a database
 * again (assay_sql_check.py, the port of assay_sql_check_read_only). Everything the session
 * holds is untrusted: it is escaped for the file it goes in, and zip entry names are made of
 * cleaned names only. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gunixinputstream.h>
#include <zip.h>

#include "assay-report-private.h"
#include "assay-report-resources.h"
#include "assay-sandbox-image.h"

#define BUNDLE_MAX_NAME_BYTES  120   /* of the folder's name, made from the session's title */
#define BUNDLE_MAX_FILE_BYTES  100   /* of a dataset's, as the sandbox cuts it */
#define BUNDLE_FILE_MODE       0644

/* What analysis.py does once the session's own data (TITLE, DATASETS, CELLS) are defined:
 * fixed text of ours, never anything of the session's. */
static const char analysis_body[] =
  "\n"
  "HERE = os.path.dirname(os.path.abspath(__file__))\n"
  "# The folders of this run (main() sets them); a cell that builds its paths itself can use them.\n"
  "DATA_DIR = os.path.join(HERE, \"data\")\n"
  "OUT_DIR = os.path.join(HERE, \"outputs\")\n"
  "\n"
  "# In Assay the cells ran in a sandbox that showed the datasets at /data/<name> and kept what\n"
  "# they wrote in /workspace, their working folder. Their code is run as it was but for one\n"
  "# thing: where a path in a cell's source starts with \"/data\" or \"/workspace\", that folder is\n"
  "# replaced by the data folder or the output folder of this run before the cell runs. The\n"
  "# cells run in the output folder, so files written under relative names land there too.\n"
  "SANDBOX_PATH = re.compile(r\"(?<![\\w./\\\\-])/(data|workspace)(?=[/\\\"'])\")\n"
  "# A folder that can stand in any kind of string literal (raw, bytes, f-string, %-format).\n"
  "PLAIN_PATH = re.compile(r\"[A-Za-z0-9_./+-]+\")\n"
  "\n"
  "plt = None\n"
  "current = {\"cell\": \"\", \"figures\": 0}\n"
  "# The databases asked again in this run (--db, --requery): name -> URL; their connections.\n"
  "ASK_AGAIN = {}\n"
  "FRAMES = None\n"
  "connections = {}\n"
  "# How each database asked again reads SQL, for the statement check: dialect, then for MySQL\n"
  "# whether a backslash escapes and whether \"...\" is a string (from its sql_mode).\n"
  "syntaxes = {}\n"
  "\n"
  "\n"
  "class QueryUnavailable(Exception):\n"
  "    \"\"\"A SQL cell whose result is neither in this bundle nor asked for again.\"\"\"\n"
  "\n"
  "\n"
  "class QueryRefused(QueryUnavailable):\n"
  "    \"\"\"A SQL cell whose statement Assay's check refuses: the database is not asked.\"\"\"\n"
  "\n"
  "\n"
  "def warn(message):\n"
  "    print(\"analysis.py: \" + message, file=sys.stderr, flush=True)\n"
  "\n"
  "\n"
  "def sha256_of(path):\n"
  "    digest = hashlib.sha256()\n"
  "    with open(path, \"rb\") as f:\n"
  "        for block in iter(lambda: f.read(1 << 20), b\"\"):\n"
  "            digest.update(block)\n"
  "    return digest.hexdigest()\n"
  "\n"
  "\n"
  "def check_data(data_dir):\n"
  "    \"\"\"Warns of each dataset that is missing or is not the file the analysis read, and of\n"
  "    each query result that is not the one the analysis loaded (unless its database is asked\n"
  "    again).\"\"\"\n"
  "    ok = True\n"
  "    for cell_id, (database, _, file, sha256) in QUERIES.items():\n"
  "        if database in ASK_AGAIN:\n"
  "            continue\n"
  "        path = os.path.join(HERE, file) if file else None\n"
  "        if path is None or not os.path.isfile(path):\n"
  "            warn(\"warning: the result of cell %s's query on %s is not in this bundle (export it \"\n"
  "                 \"with its data, or ask the database again with --db %s=URL or --requery)\"\n"
  "                 % (cell_id, database, database))\n"
  "            ok = False\n"
  "        elif sha256 and sha256_of(path) != sha256:\n"
  "            warn(\"warning: %s is not the result the analysis loaded: its SHA-256 is not the \"\n"
  "                 \"recorded %s\" % (path, sha256))\n"
  "            ok = False\n"
  "    for _, file, sha256 in DATASETS:\n"
  "        path = os.path.join(data_dir, os.path.basename(file))\n"
  "        if not os.path.isfile(path):\n"
  "            warn(\"warning: %s is missing (the cells read it as /data/%s)\"\n"
  "                 % (path, os.path.basename(file)))\n"
  "            ok = False\n"
  "        elif sha256 and sha256_of(path) != sha256:\n"
  "            warn(\"warning: %s is not the file the analysis read: its SHA-256 is not the \"\n"
  "                 \"recorded %s\" % (path, sha256))\n"
  "            ok = False\n"
  "    return ok\n"
  "\n"
  "\n"
  "def sandbox_view(data_dir, out_dir):\n"
  "    \"\"\"The folders that stand for /data and /workspace in the cells' source, and a folder\n"
  "    to remove at the end (or None).\"\"\"\n"
  "    if PLAIN_PATH.fullmatch(data_dir) and PLAIN_PATH.fullmatch(out_dir):\n"
  "        return data_dir, out_dir, None\n"
  "    # A folder of links with a plain path to the datasets and the output folder.\n"
  "    base = tempfile.gettempdir()\n"
  "    view = tempfile.mkdtemp(prefix=\"assay-\", dir=base if PLAIN_PATH.fullmatch(base) else \"/tmp\")\n"
  "    if not PLAIN_PATH.fullmatch(view):\n"
  "        raise SystemExit(\"analysis.py: no folder with a plain path for the data: set TMPDIR\")\n"
  "    os.mkdir(os.path.join(view, \"data\"))\n"
  "    for _, file, _ in DATASETS:\n"
  "        link = os.path.join(view, \"data\", os.path.basename(file))\n"
  "        if not os.path.lexists(link):\n"
  "            os.symlink(os.path.join(data_dir, os.path.basename(file)), link)\n"
  "    os.symlink(out_dir, os.path.join(view, \"workspace\"))\n"
  "    return os.path.join(view, \"data\"), os.path.join(view, \"workspace\"), view\n"
  "\n"
  "\n"
  "def rewrite(source, data_dir, out_dir):\n"
  "    folders = {\"data\": data_dir, \"workspace\": out_dir}\n"
  "    return SANDBOX_PATH.sub(lambda match: folders[match.group(1)], source)\n"
  "\n"
  "\n"
  "def setup_matplotlib():\n"
  "    global plt\n"
  "    # No window: figures are saved in the output folder, as Assay kept them.\n"
  "    os.environ[\"MPLBACKEND\"] = \"Agg\"\n"
  "    try:\n"
  "        import matplotlib\n"
  "        matplotlib.use(\"Agg\")\n"
  "        import matplotlib.pyplot\n"
  "    except Exception:\n"
  "        return\n"
  "    plt = matplotlib.pyplot\n"
  "    plt.show = lambda *args, **kwargs: save_figures()\n"
  "\n"
  "\n"
  "def save_figure(fig):\n"
  "    current[\"figures\"] += 1\n"
  "    name = \"figure-%s-%d.png\" % (current[\"cell\"], current[\"figures\"])\n"
  "    fig.savefig(os.path.join(OUT_DIR, name), format=\"png\", dpi=100, bbox_inches=\"tight\")\n"
  "    warn(\"saved the figure %s\" % os.path.join(OUT_DIR, name))\n"
  "\n"
  "\n"
  "def save_figures():\n"
  "    \"\"\"The open figures, which Assay showed at the end of a cell.\"\"\"\n"
  "    if plt is None:\n"
  "        return\n"
  "    try:\n"
  "        for number in plt.get_fignums():\n"
  "            save_figure(plt.figure(number))\n"
  "    finally:\n"
  "        plt.close(\"all\")\n"
  "\n"
  "\n"
  "def load_frames():\n"
  "    \"\"\"assay_frames.py beside this script: how Assay's sandbox loads a query's result.\"\"\"\n"
  "    import importlib.util\n"
  "    spec = importlib.util.spec_from_file_location(\"assay_frames\", os.path.join(HERE, \"assay_frames.py\"))\n"
  "    module = importlib.util.module_from_spec(spec)\n"
  "    spec.loader.exec_module(module)\n"
  "    return module\n"
  "\n"
  "\n"
  "def load_sql_check():\n"
  "    \"\"\"assay_sql_check.py beside this script: the check Assay applies to a statement before\n"
  "    it asks a database (one query that only reads).\"\"\"\n"
  "    import importlib.util\n"
  "    path = os.path.join(HERE, \"assay_sql_check.py\")\n"
  "    if not os.path.isfile(path):\n"
  "        raise QueryRefused(\"%s is missing: without Assay's statement check no database is asked\" % path)\n"
  "    spec = importlib.util.spec_from_file_location(\"assay_sql_check\", path)\n"
  "    module = importlib.util.module_from_spec(spec)\n"
  "    spec.loader.exec_module(module)\n"
  "    return module\n"
  "\n"
  "\n"
  "def dialect_of(url):\n"
  "    scheme = url.split(\":\", 1)[0].lower()\n"
  "    return {\"postgresql\": \"postgresql\", \"postgres\": \"postgresql\", \"mysql\": \"mysql\",\n"
  "            \"mariadb\": \"mysql\", \"sqlite\": \"sqlite\"}.get(scheme)\n"
  "\n"
  "\n"
  "def checked(cell_id, database, sql):\n"
  "    \"\"\"The statement of cell CELL_ID as Assay's check lets it through to DATABASE, or\n"
  "    QueryRefused saying why.\"\"\"\n"
  "    check = load_sql_check()\n"
  "    try:\n"
  "        return check.check_read_only(sql, *syntaxes[database])\n"
  "    except check.Refused as exc:\n"
  "        raise QueryRefused(\"the SQL of cell %s is refused by Assay's statement check, so the \"\n"
  "                           \"database %s was not asked: %s\" % (cell_id, database, exc)) from None\n"
  "\n"
  "\n"
  "def connect(name, url):\n"
  "    \"\"\"A read-only connection to the database NAME at URL (passwords as the drivers find\n"
  "    them: in the URL, PGPASSWORD or ~/.pgpass, MYSQL_PWD or ~/.my.cnf).\"\"\"\n"
  "    import urllib.parse\n"
  "    if name in connections:\n"
  "        return connections[name]\n"
  "    kind = next((k for n, k, _ in DATABASES if n == name), None)\n"
  "    scheme = url.split(\":\", 1)[0].lower()\n"
  "    if scheme in (\"postgresql\", \"postgres\"):\n"
  "        import psycopg2\n"
  "        con = psycopg2.connect(url)\n"
  "        con.set_session(readonly=True)\n"
  "    elif scheme in (\"mysql\", \"mariadb\"):\n"
  "        import MySQLdb\n"
  "        parts = urllib.parse.urlsplit(url)\n"
  "        params = dict(urllib.parse.parse_qsl(parts.query))\n"
  "        options = {\"charset\": \"utf8mb4\"}\n"
  "        socket = params.get(\"socket\") or (params.get(\"host\") if params.get(\"host\", \"\").startswith(\"/\") else None)\n"
  "        if socket:\n"
  "            options[\"unix_socket\"] = socket\n"
  "        elif parts.hostname:\n"
  "            options[\"host\"] = parts.hostname\n"
  "        if parts.port:\n"
  "            options[\"port\"] = parts.port\n"
  "        if parts.username:\n"
  "            options[\"user\"] = urllib.parse.unquote(parts.username)\n"
  "        password = urllib.parse.unquote(parts.password) if parts.password else os.environ.get(\"MYSQL_PWD\")\n"
  "        if password is not None:\n"
  "            options[\"passwd\"] = password\n"
  "        if parts.path.strip(\"/\"):\n"
  "            options[\"db\"] = urllib.parse.unquote(parts.path.strip(\"/\"))\n"
  "        if os.path.isfile(os.path.expanduser(\"~/.my.cnf\")):\n"
  "            options[\"read_default_file\"] = os.path.expanduser(\"~/.my.cnf\")\n"
  "        con = MySQLdb.connect(**options)\n"
  "        cursor = con.cursor()\n"
  "        cursor.execute(\"SET SESSION TRANSACTION READ ONLY\")\n"
  "        # How this server reads quotes, for the statement check (as Assay reads it).\n"
  "        cursor.execute(\"SELECT @@SESSION.sql_mode\")\n"
  "        row = cursor.fetchone()\n"
  "        mode = row[0] if row else None\n"
  "        if isinstance(mode, bytes):\n"
  "            mode = mode.decode(\"utf-8\", \"replace\")\n"
  "        syntaxes[name] = (\"mysql\", mode is None or \"NO_BACKSLASH_ESCAPES\" not in mode,\n"
  "                          mode is None or \"ANSI_QUOTES\" not in mode)\n"
  "    elif scheme == \"sqlite\":\n"
  "        import sqlite3\n"
  "        path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)\n"
  "        con = sqlite3.connect(\"file:%s?mode=ro\" % urllib.parse.quote(path), uri=True)\n"
  "    else:\n"
  "        raise QueryUnavailable(\"%s: a database URL starts with postgresql://, mysql://, mariadb:// \"\n"
  "                               \"or sqlite:// (the analysis recorded %s as %s)\" % (url, name, kind))\n"
  "    connections[name] = con\n"
  "    return con\n"
  "\n"
  "\n"
  "def run_query(cell_id, database, sql, file):\n"
  "    \"\"\"The DataFrame of a SQL cell: its database asked again, or the result Assay kept.\"\"\"\n"
  "    if database in ASK_AGAIN:\n"
  "        import warnings\n"
  "        import pandas\n"
  "        # Assay's check first, as Assay runs it: PostgreSQL and SQLite before connecting;\n"
  "        # MySQL once the connection (read-only, nothing of the cell's sent) has its sql_mode.\n"
  "        dialect = dialect_of(ASK_AGAIN[database])\n"
  "        if dialect in (\"postgresql\", \"sqlite\"):\n"
  "            syntaxes[database] = (dialect, False, False)\n"
  "            sql = checked(cell_id, database, sql)\n"
  "        con = connect(database, ASK_AGAIN[database])\n"
  "        if dialect == \"mysql\":\n"
  "            sql = checked(cell_id, database, sql)\n"
  "        with warnings.catch_warnings():\n"
  "            # pandas prefers SQLAlchemy; a DB-API connection reads the same rows.\n"
  "            warnings.simplefilter(\"ignore\", UserWarning)\n"
  "            frame = pandas.read_sql(sql, con)\n"
  "        if hasattr(con, \"rollback\"):\n"
  "            con.rollback()\n"
  "        warn(\"cell %s: asked %s again\" % (cell_id, database))\n"
  "        return frame\n"
  "    path = os.path.join(HERE, file) if file else None\n"
  "    if path is None or not os.path.isfile(path):\n"
  "        raise QueryUnavailable(\"cell %s reads the result of a query on the database %s, which is \"\n"
  "                               \"not in this bundle: ask the database again with --db %s=URL \"\n"
  "                               \"(or --requery), or export the bundle with its data\"\n"
  "                               % (cell_id, database, database))\n"
  "    return FRAMES.load(path)\n"
  "\n"
  "\n"
  "def display(*objects, **kwargs):\n"
  "    \"\"\"As in Assay's sandbox: a figure is saved, anything else is printed as its repr().\"\"\"\n"
  "    for obj in objects:\n"
  "        if plt is not None and isinstance(obj, plt.Figure):\n"
  "            save_figure(obj)\n"
  "            plt.close(obj)\n"
  "        else:\n"
  "            print(repr(obj))\n"
  "\n"
  "\n"
  "def ends_with_semicolon(source, node):\n"
  "    lines = source.splitlines()\n"
  "    if node.end_lineno is None or node.end_lineno > len(lines):\n"
  "        return False\n"
  "    rest = lines[node.end_lineno - 1].encode(\"utf-8\")[node.end_col_offset:]\n"
  "    return rest.decode(\"utf-8\", \"replace\").lstrip().startswith(\";\")\n"
  "\n"
  "\n"
  "def run_cell(namespace, cell_id, source):\n"
  "    \"\"\"As a notebook does: the value of a last expression is shown.\"\"\"\n"
  "    filename = \"<cell %s>\" % cell_id\n"
  "    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)\n"
  "    tree = compile(source, filename, \"exec\", ast.PyCF_ONLY_AST)\n"
  "    last = None\n"
  "    if tree.body and isinstance(tree.body[-1], ast.Expr) \\\n"
  "            and not ends_with_semicolon(source, tree.body[-1]):\n"
  "        last = ast.Expression(tree.body.pop().value)\n"
  "    exec(compile(tree, filename, \"exec\"), namespace)\n"
  "    if last is not None:\n"
  "        value = eval(compile(last, filename, \"eval\"), namespace)\n"
  "        if value is not None:\n"
  "            namespace[\"_\"] = value\n"
  "            display(value)\n"
  "\n"
  "\n"
  "def run_cells(data_path, out_path):\n"
  "    global FRAMES\n"
  "    if QUERIES:\n"
  "        FRAMES = load_frames()\n"
  "    os.chdir(OUT_DIR)\n"
  "    sys.path.insert(0, OUT_DIR)\n"
  "    sys.dont_write_bytecode = True\n"
  "    setup_matplotlib()\n"
  "    # One namespace for all the cells, a module installed as __main__ as in Assay's kernel\n"
  "    # (so that what a cell defines can be pickled).\n"
  "    module = types.ModuleType(\"__main__\")\n"
  "    namespace = module.__dict__\n"
  "    namespace.update({\"__builtins__\": builtins, \"display\": display,\n"
  "                      \"DATA_DIR\": data_path, \"OUT_DIR\": out_path})\n"
  "    sys.modules[\"__main__\"] = module\n"
  "    for cell_id, description, source in CELLS:\n"
  "        current[\"cell\"] = re.sub(r\"[^A-Za-z0-9_-]\", \"_\", cell_id)\n"
  "        current[\"figures\"] = 0\n"
  "        print(\"# ---- cell %s: %s\" % (cell_id, \" \".join(description.split())), flush=True)\n"
  "        try:\n"
  "            try:\n"
  "                if cell_id in QUERIES:\n"
  "                    database, frame_name, file, _ = QUERIES[cell_id]\n"
  "                    namespace[frame_name] = run_query(cell_id, database, source, file)\n"
  "                    FRAMES.show(namespace[frame_name])\n"
  "                else:\n"
  "                    run_cell(namespace, cell_id, rewrite(source, data_path, out_path))\n"
  "            finally:\n"
  "                save_figures()\n"
  "        except QueryUnavailable as exc:\n"
  "            sys.stdout.flush()\n"
  "            warn(\"cell %s failed: %s\" % (cell_id, exc))\n"
  "            return 1\n"
  "        except BaseException as exc:\n"
  "            sys.stdout.flush()\n"
  "            tb = exc.__traceback__\n"
  "            while tb is not None and tb.tb_frame.f_code.co_filename == __file__:\n"
  "                tb = tb.tb_next\n"
  "            traceback.print_exception(type(exc), exc, tb)\n"
  "            warn(\"cell %s failed: %s\" % (cell_id, traceback.format_exception_only(type(exc), exc)[-1].strip()))\n"
  "            return 1\n"
  "        sys.stdout.flush()\n"
  "        sys.stderr.flush()\n"
  "    return 0\n"
  "\n"
  "\n"
  "def main(argv=None):\n"
  "    global DATA_DIR, OUT_DIR\n"
  "    parser = argparse.ArgumentParser(\n"
  "        description=\"Runs the analysis again without Assay: the cells that succeeded, in the \"\n"
  "                    \"order they ran, in one namespace.\")\n"
  "    parser.add_argument(\"--data-dir\", metavar=\"DIR\", default=DATA_DIR,\n"
  "                        help=\"the folder of the datasets (default: data next to this script)\")\n"
  "    parser.add_argument(\"--out\", metavar=\"DIR\", default=OUT_DIR,\n"
  "                        help=\"the folder for the files and figures the cells make \"\n"
  "                             \"(default: outputs next to this script)\")\n"
  "    parser.add_argument(\"--db\", metavar=\"NAME=URL\", action=\"append\", default=[],\n"
  "                        help=\"ask the database NAME again, at URL, instead of loading the result \"\n"
  "                             \"the analysis kept (read-only; may be given more than once)\")\n"
  "    parser.add_argument(\"--requery\", action=\"store_true\",\n"
  "                        help=\"ask every database again at the address the analysis recorded \"\n"
  "                             \"(passwords from the environment or the drivers' files)\")\n"
  "    parser.add_argument(\"--strict\", action=\"store_true\",\n"
  "                        help=\"stop before the first cell when a dataset is missing or is not \"\n"
  "                             \"the file the analysis read (its SHA-256)\")\n"
  "    args = parser.parse_args(argv)\n"
  "    names = [name for name, _, _ in DATABASES]\n"
  "    if args.requery:\n"
  "        ASK_AGAIN.update((name, url) for name, _, url in DATABASES)\n"
  "    for given in args.db:\n"
  "        name, equals, url = given.partition(\"=\")\n"
  "        if not equals or not url:\n"
  "            parser.error(\"--db takes NAME=URL, not %s\" % given)\n"
  "        if name not in names:\n"
  "            parser.error(\"the analysis queried no database %s (it queried: %s)\"\n"
  "                         % (name, \", \".join(names) or \"none\"))\n"
  "        ASK_AGAIN[name] = url\n"
  "    DATA_DIR = os.path.abspath(args.data_dir)\n"
  "    OUT_DIR = os.path.abspath(args.out)\n"
  "    if not check_data(DATA_DIR) and args.strict:\n"
  "        warn(\"stopped (--strict): the data are not the files the analysis read\")\n"
  "        return 3\n"
  "    os.makedirs(OUT_DIR, exist_ok=True)\n"
  "    data_path, out_path, view = sandbox_view(DATA_DIR, OUT_DIR)\n"
  "    try:\n"
  "        return run_cells(data_path, out_path)\n"
  "    finally:\n"
  "        for con in connections.values():\n"
  "            con.close()\n"
  "        if view is not None:\n"
  "            shutil.rmtree(view, ignore_errors=True)\n"
  "\n"
  "\n"
  "if __name__ == \"__main__\":\n"
  "    sys.exit(main())\n";

/* ---- text made safe for where it goes --------------------------------------------------------- */

/* Characters that reorder or hide text when shown ("Trojan Source"): a reader of the script
 * or the README must see what is there. */
static gboolean
report_bundle_is_invisible (gunichar c)
{
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
         c == 0x200e || c == 0x200f || c == 0x061c || c == 0x2028 || c == 0x2029 ||
         c == 0xfeff;
}

/* TEXT as a Python string literal: every quote, backslash, control and invisible character
 * escaped, so no text can end the literal or hide what it holds. */
static void
report_bundle_append_python_string (GString    *out,
                                    const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);

  g_string_append_c (out, '"');
  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      switch (c)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        default:
          if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
            g_string_append_printf (out, "\\x%02x", c);
          else if (report_bundle_is_invisible (c))
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_len (out, p, g_utf8_next_char (p) - p);
          break;
        }
    }
  g_string_append_c (out, '"');
}

/* TEXT as a Python expression over several lines: one literal a line of TEXT, which Python
 * joins, so the code reads as it was written. INDENT starts each continuation line. */
/* TEXT as the rest of a "#" comment line: one line, nothing a terminal or an editor would
 * read as another line or as code. */
static void
report_bundle_append_comment (GString    *out,
                              const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text != NULL ? text : "", -1);

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029 ||
          report_bundle_is_invisible (c))
        g_string_append_c (out, ' ');
      else
        g_string_append_unichar (out, c);
    }
  g_string_append_c (out, '\n');
}

static void
report_bundle_append_python_lines (GString    *out,
                                   const char *text,
                                   const char *indent)
{
  const char *p = text ? text : "";

  if (*p == '\0')
    {
      g_string_append (out, "\"\"");
      return;
    }
  while (*p)
    {
      const char *nl = strchr (p, '\n');
      gsize len = nl ? (gsize) (nl - p + 1) : strlen (p);
      g_autofree char *line = g_strndup (p, len);

      if (p != text)
        g_string_append_printf (out, "\n%s", indent);
      report_bundle_append_python_string (out, line);
      p += len;
    }
}

/* TEXT on one line of Markdown as plain text: line breaks become spaces and every character
 * Markdown or HTML could read as markup is escaped with a backslash (CommonMark escapes any
 * ASCII punctuation so). */
static void
report_bundle_append_markdown_text (GString    *out,
                                    const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);
  gboolean space = FALSE;

  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c) || c < 0x20 || c == 0x7f || report_bundle_is_invisible (c))
        {
          space = TRUE;
          continue;
        }
      if (space && out->len > 0 && out->str[out->len - 1] != ' ')
        g_string_append_c (out, ' ');
      space = FALSE;
      if (c < 0x80 && g_ascii_ispunct ((char) c))
        g_string_append_c (out, '\\');
      g_string_append_unichar (out, c);
    }
}

/* The bundle's folder from the session's title: letters and digits of any script, "-", "_"
 * and "."; any run of other characters becomes one "-". Never empty, never hidden, never
 * longer than BUNDLE_MAX_NAME_BYTES. */
static char *
report_bundle_folder_name (const char *title)
{
  g_autofree char *valid = g_utf8_make_valid (title ? title : "", -1);
  GString *name = g_string_new (NULL);

  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      gsize before = name->len;

      if (g_unichar_isalnum (c) || c == '-' || c == '_' || c == '.')
        g_string_append_unichar (name, c);
      else if (name->len > 0 && name->str[name->len - 1] != '-')
        g_string_append_c (name, '-');
      if (name->len > BUNDLE_MAX_NAME_BYTES)
        {
          g_string_truncate (name, before);
          break;
        }
    }
  while (name->len > 0 && strchr (".-", name->str[0]))
    g_string_erase (name, 0, 1);
  while (name->len > 0 && strchr (".-", name->str[name->len - 1]))
    g_string_truncate (name, name->len - 1);
  if (name->len == 0)
    g_string_assign (name, "analysis");
  return g_string_free (name, FALSE);
}

/* A dataset's file name: cleaned as the sandbox cleans the names it shows under /data
 * (assay-kernel-session: letters, digits, ".", "-", "_" and spaces, anything else "_", no
 * leading dot or space, 100 bytes), so the file is called what the cells read. */
static char *
report_bundle_file_name (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);
  GString *name = g_string_new (NULL);

  for (const char *p = valid; *p && name->len < BUNDLE_MAX_FILE_BYTES; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isalnum (c) || c == '.' || c == '-' || c == '_' || c == ' ')
        g_string_append_unichar (name, c);
      else
        g_string_append_c (name, '_');
    }
  while (name->len > 0 && (name->str[0] == '.' || name->str[0] == ' '))
    g_string_erase (name, 0, 1);
  if (name->len == 0)
    g_string_append (name, "file");
  return g_string_free (name, FALSE);
}

/* A dataset's file name in data/, made unique among TAKEN. */
static char *
report_bundle_dataset_file (const char *name,
                            GHashTable *taken)
{
  g_autofree char *clean = report_bundle_file_name (name);
  char *unique = g_strdup (clean);

  for (guint n = 2; g_hash_table_contains (taken, unique); n++)
    {
      const char *dot = strrchr (clean, '.');
      gsize stem = dot && dot != clean ? (gsize) (dot - clean) : strlen (clean);

      g_free (unique);
      unique = g_strdup_printf ("%.*s-%u%s", (int) stem, clean, n, clean + stem);
    }
  g_hash_table_add (taken, g_strdup (unique));
  return unique;
}

static gboolean
report_bundle_is_sha256 (const char *text)
{
  if (text == NULL || strlen (text) != 64)
    return FALSE;
  for (const char *p = text; *p; p++)
    if (!g_ascii_isxdigit (*p))
      return FALSE;
  return TRUE;
}

/* ---- the datasets ---------------------------------------------------------------------------- */

typedef struct
{
  const ReportDataset *dataset;
  char                *file;     /* its name in data/ */
  char                *sha256;   /* recorded, else computed from the file; NULL: neither */
  gboolean             present;  /* the session's copy can be read */
} BundleDataset;

static void
report_bundle_dataset_free (BundleDataset *entry)
{
  g_free (entry->file);
  g_free (entry->sha256);
  g_free (entry);
}

/* The dataset's file, opened without following a link; -1 when it is not a regular file. */
static int
report_bundle_open_dataset (const ReportDataset *dataset)
{
  struct stat st;
  int fd;

  if (dataset->path == NULL)
    return -1;
  fd = g_open (dataset->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0);
  if (fd < 0)
    return -1;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return -1;
    }
  return fd;
}

static char *
report_bundle_hash_file (int           fd,
                         GCancellable *cancellable,
                         GError      **error)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree guint8 *buffer = g_malloc (1 << 20);
  ssize_t n;

  while ((n = read (fd, buffer, 1 << 20)) != 0)
    {
      if (n < 0)
        {
          int saved = errno;

          if (saved == EINTR)
            continue;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s", g_strerror (saved));
          return NULL;
        }
      g_checksum_update (checksum, buffer, n);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
    }
  return g_strdup (g_checksum_get_string (checksum));
}

static GPtrArray *
report_bundle_datasets (AssayReport   *report,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) report_bundle_dataset_free);
  g_autoptr(GHashTable) taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < report->datasets->len; i++)
    {
      const ReportDataset *dataset = g_ptr_array_index (report->datasets, i);
      BundleDataset *entry = g_new0 (BundleDataset, 1);
      int fd = report_bundle_open_dataset (dataset);

      entry->dataset = dataset;
      entry->file = report_bundle_dataset_file (dataset->name, taken);
      entry->present = fd >= 0;
      g_ptr_array_add (entries, entry);
      /* What was added to the session is what the cells read: the recorded hash wins. */
      if (report_bundle_is_sha256 (dataset->sha256))
        entry->sha256 = g_ascii_strdown (dataset->sha256, -1);
      else if (fd >= 0)
        {
          g_autoptr(GError) local_error = NULL;

          entry->sha256 = report_bundle_hash_file (fd, cancellable, &local_error);
          if (entry->sha256 == NULL)
            {
              close (fd);
              if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                {
                  g_propagate_error (error, g_steal_pointer (&local_error));
                  return NULL;
                }
              g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                           _("Cannot read the dataset %s: %s"), dataset->name, local_error->message);
              return NULL;
            }
        }
      if (fd >= 0)
        close (fd);
    }
  return g_steal_pointer (&entries);
}

/* A SQL cell's cached result, as queries/cell-N.aqr in the bundle. */
typedef struct
{
  const ReportCell *cell;
  char             *file;      /* "queries/cell-3.aqr" */
  char             *sha256;    /* of the session's copy; NULL: it cannot be read */
} BundleQuery;

static void
report_bundle_query_free (BundleQuery *entry)
{
  g_free (entry->file);
  g_free (entry->sha256);
  g_free (entry);
}

static gboolean
report_bundle_is_query (const ReportCell *cell)
{
  return cell->kind == ASSAY_CELL_KIND_SQL && cell->succeeded && cell->code != NULL &&
         cell->database != NULL && cell->frame != NULL;
}

/* The cached result's file, opened without following a link; -1 when it is not a regular file. */
static int
report_bundle_open_query (const BundleQuery *entry)
{
  ReportDataset as_file = { .path = entry->cell->query_result };

  return report_bundle_open_dataset (&as_file);
}

/* The SQL cells that succeeded, their results hashed. */
static GPtrArray *
report_bundle_queries (AssayReport   *report,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) report_bundle_query_free);

  for (guint i = 0; i < report->cells->len; i++)
    {
      const ReportCell *cell = g_ptr_array_index (report->cells, i);
      BundleQuery *entry;
      int fd;

      if (!report_bundle_is_query (cell))
        continue;
      entry = g_new0 (BundleQuery, 1);
      entry->cell = cell;
      entry->file = g_strdup_printf ("queries/cell-%u.aqr", cell->execution_count);
      g_ptr_array_add (entries, entry);
      fd = report_bundle_open_query (entry);
      if (fd >= 0)
        {
          g_autoptr(GError) local_error = NULL;

          entry->sha256 = report_bundle_hash_file (fd, cancellable, &local_error);
          close (fd);
          if (entry->sha256 == NULL)
            {
              if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                {
                  g_propagate_error (error, g_steal_pointer (&local_error));
                  return NULL;
                }
              g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                           _("Cannot read the result of cell %s’s query: %s"), cell->id, local_error->message);
              return NULL;
            }
        }
    }
  return g_steal_pointer (&entries);
}

static char *
report_bundle_sha256_list (GPtrArray *datasets,
                           GPtrArray *queries,
                           gboolean   with_queries)
{
  GString *text = g_string_new (NULL);

  /* sha256sum -c reads "<hash>  <file>"; the names are clean, so none needs its escapes. */
  for (guint i = 0; i < datasets->len; i++)
    {
      const BundleDataset *entry = g_ptr_array_index (datasets, i);

      if (entry->sha256 != NULL)
        g_string_append_printf (text, "%s  data/%s\n", entry->sha256, entry->file);
    }
  for (guint i = 0; with_queries && i < queries->len; i++)
    {
      const BundleQuery *entry = g_ptr_array_index (queries, i);

      if (entry->sha256 != NULL)
        g_string_append_printf (text, "%s  %s\n", entry->sha256, entry->file);
    }
  return g_string_free (text, FALSE);
}

/* ---- environment.txt ------------------------------------------------------------------------- */

/* Debian's version without its epoch and revision: "1:1.24.2-1" → "1.24.2". */
static char *
report_bundle_upstream_version (const char *version)
{
  const char *colon = strchr (version, ':');
  const char *start = colon ? colon + 1 : version;
  const char *dash = strrchr (start, '-');

  return g_strndup (start, dash ? (gsize) (dash - start) : strlen (start));
}

/* The installed packages of a dpkg status file: name → version. */
static GHashTable *
report_bundle_read_dpkg_status (const char *path)
{
  g_autoptr(GHashTable) installed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *package = NULL;
  g_autofree char *version = NULL;
  gboolean ok = FALSE;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; ; i++)
    {
      const char *line = lines[i];

      if (line == NULL || *line == '\0')
        {
          if (ok && package && version)
            g_hash_table_replace (installed, g_steal_pointer (&package), g_steal_pointer (&version));
          g_clear_pointer (&package, g_free);
          g_clear_pointer (&version, g_free);
          ok = FALSE;
          if (line == NULL)
            break;
          continue;
        }
      if (g_str_has_prefix (line, "Package:"))
        {
          g_free (package);
          package = g_strdup (g_strstrip (lines[i] + strlen ("Package:")));
        }
      else if (g_str_has_prefix (line, "Version:"))
        {
          g_free (version);
          version = g_strdup (g_strstrip (lines[i] + strlen ("Version:")));
        }
      else if (g_str_has_prefix (line, "Status:"))
        ok = g_str_has_suffix (line, " installed");
    }
  return g_steal_pointer (&installed);
}

static char *
report_bundle_first_line (const char *path)
{
  g_autofree char *contents = NULL;
  char *nl;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  nl = strchr (contents, '\n');
  if (nl)
    *nl = '\0';
  g_strstrip (contents);
  return *contents && g_utf8_validate (contents, -1, NULL) ? g_steal_pointer (&contents) : NULL;
}

/* The packages the recipe names, in its order. */
static GPtrArray *
report_bundle_recipe_packages (const char *recipe_dir)
{
  g_autofree char *path = g_build_filename (recipe_dir, "packages.txt", NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *packages = g_ptr_array_new_with_free_func (g_free);

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return packages;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *hash = strchr (lines[i], '#');

      if (hash != NULL)
        *hash = '\0';
      g_strstrip (lines[i]);
      if (lines[i][0] != '\0')
        g_ptr_array_add (packages, g_strdup (lines[i]));
    }
  return packages;
}

static int
report_bundle_compare_names (gconstpointer a,
                             gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The exact versions of the sandbox image Assay uses now (a session does not record which
 * image it ran in): the packages of the recipe and every python3 one, read from its tree.
 * *DOCKER_REF: the image's Docker name, or NULL when there is no tree. */
static char *
report_bundle_environment (char **docker_ref)
{
  g_autoptr(AssaySandboxImage) image = assay_sandbox_image_new (NULL);
  g_autoptr(GPtrArray) recipe = report_bundle_recipe_packages (assay_sandbox_image_get_recipe_dir (image));
  g_autofree char *tree_name = g_path_get_basename (assay_sandbox_image_get_tree_dir (image));
  g_autofree char *status_path = NULL;
  g_autoptr(GHashTable) installed = NULL;
  g_autoptr(GHashTable) wanted = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GString *text = g_string_new (NULL);

  *docker_ref = NULL;
  status_path = g_build_filename (assay_sandbox_image_get_tree_dir (image), "var", "lib", "dpkg", "status", NULL);
  if (assay_sandbox_image_has_tree (image))
    installed = report_bundle_read_dpkg_status (status_path);
  if (installed == NULL)
    {
      g_string_append_printf (text,
                              "# Assay's sandbox image %s was not found on the computer that made this\n"
                              "# bundle (no tree %s, which \"assay-cli sandbox build\" makes), so its exact\n"
                              "# package versions are unknown. Its recipe asks for these Debian packages:\n",
                              assay_sandbox_image_get_docker_ref (image), tree_name);
      for (guint i = 0; i < recipe->len; i++)
        g_string_append_printf (text, "# %s\n", (char *) g_ptr_array_index (recipe, i));
      return g_string_free (text, FALSE);
    }

  *docker_ref = g_strdup (assay_sandbox_image_get_docker_ref (image));
  g_string_append_printf (text,
                          "# The Python environment of Assay's sandbox image %s: Debian packages as its\n"
                          "# tree (%s) lists them, name=version. (The session does not record which\n"
                          "# image it ran in: this is the one Assay uses now.)\n",
                          *docker_ref, tree_name);
  {
    g_autofree char *os_path = g_build_filename (assay_sandbox_image_get_tree_dir (image), "etc", "debian_version", NULL);
    g_autofree char *debian = report_bundle_first_line (os_path);

    if (debian != NULL)
      g_string_append_printf (text, "# Debian %s\n", debian);
  }
  /* The interpreter python3 points to, as its package says. */
  {
    g_autofree char *link = g_build_filename (assay_sandbox_image_get_tree_dir (image), "usr", "bin", "python3", NULL);
    g_autofree char *target = g_file_read_link (link, NULL);
    g_autofree char *base = target ? g_path_get_basename (target) : NULL;
    const char *version = base ? g_hash_table_lookup (installed, base) : NULL;

    if (version == NULL)
      version = g_hash_table_lookup (installed, "python3");
    if (version != NULL)
      {
        g_autofree char *upstream = report_bundle_upstream_version (version);

        g_string_append_printf (text, "python=%s\n", upstream);
      }
  }

  for (guint i = 0; i < recipe->len; i++)
    if (g_hash_table_add (wanted, g_ptr_array_index (recipe, i)))
      g_ptr_array_add (names, g_ptr_array_index (recipe, i));
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, installed);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      if (g_str_has_prefix (key, "python3") && g_hash_table_add (wanted, key))
        g_ptr_array_add (names, key);
  }
  g_ptr_array_sort (names, report_bundle_compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      const char *version = g_hash_table_lookup (installed, name);

      if (version != NULL)
        g_string_append_printf (text, "%s=%s\n", name, version);
      else
        g_string_append_printf (text, "# %s: not installed in the image\n", name);
    }
  return g_string_free (text, FALSE);
}

/* ---- analysis.py ----------------------------------------------------------------------------- */

static void
report_bundle_append_python_string_or_none (GString    *out,
                                            const char *text)
{
  if (text != NULL)
    report_bundle_append_python_string (out, text);
  else
    g_string_append (out, "None");
}

static char *
report_bundle_analysis_script (AssayReport *report,
                               GPtrArray   *datasets,
                               GPtrArray   *queries,
                               gboolean     with_queries)
{
  GString *script = g_string_new (NULL);
  g_autofree char *date = report_format_date (report->created);

  g_string_append (script,
    "#!/usr/bin/env python3\n"
    "# An analysis made in Assay, as a script that runs it again without Assay: the cells that\n"
    "# succeeded, in the order they ran, in one namespace, each printing what it prints. See\n"
    "# README.md.\n"
    "#\n"
    "#   python3 analysis.py [--data-dir DIR] [--out DIR] [--strict]\n"
    "#\n"
    "# Exit status: 0 every cell ran; 1 a cell failed (the cell is named); 2 usage; 3 with\n"
    "# --strict, a dataset is missing or is not the file the analysis read.\n"
    "import argparse\n"
    "import ast\n"
    "import builtins\n"
    "import hashlib\n"
    "import linecache\n"
    "import os\n"
    "import re\n"
    "import shutil\n"
    "import sys\n"
    "import tempfile\n"
    "import traceback\n"
    "import types\n"
    "\n"
    "# The session's text below is in Python string literals, as written in Assay.\n"
    "TITLE = ");
  report_bundle_append_python_string (script, report->title);
  g_string_append (script, "\nSTARTED = ");
  report_bundle_append_python_string (script, date);
  g_string_append (script,
    "\n# The datasets: the name each was added to the session as; its file in this bundle, named\n"
    "# as the cells read it under /data; its SHA-256 when it was added.\n"
    "DATASETS = [\n");
  for (guint i = 0; i < datasets->len; i++)
    {
      const BundleDataset *entry = g_ptr_array_index (datasets, i);
      g_autofree char *file = g_strconcat ("data/", entry->file, NULL);

      g_string_append (script, "    (");
      report_bundle_append_python_string (script, entry->dataset->name);
      g_string_append (script, ", ");
      report_bundle_append_python_string (script, file);
      g_string_append (script, ", ");
      if (entry->sha256)
        report_bundle_append_python_string (script, entry->sha256);
      else
        g_string_append (script, "None");
      g_string_append (script, "),\n");
    }
  g_string_append (script,
    "]\n"
    "# The databases its SQL cells queried: name, kind, URL as recorded (never a password).\n"
    "DATABASES = [\n");
  for (guint i = 0; i < report->sources->len; i++)
    {
      const ReportSource *source = g_ptr_array_index (report->sources, i);

      g_string_append (script, "    (");
      report_bundle_append_python_string_or_none (script, source->name);
      g_string_append (script, ", ");
      report_bundle_append_python_string_or_none (script, source->kind);
      g_string_append (script, ", ");
      report_bundle_append_python_string_or_none (script, source->url);
      g_string_append (script, "),\n");
    }
  g_string_append (script,
    "]\n"
    "# The SQL cells: cell id -> the database, the DataFrame its result became, the result as\n"
    "# Assay kept it in this bundle (None: not here), its SHA-256. Their code below is the SQL.\n"
    "QUERIES = {\n");
  for (guint i = 0; i < queries->len; i++)
    {
      const BundleQuery *entry = g_ptr_array_index (queries, i);
      gboolean here = with_queries && entry->sha256 != NULL;

      g_string_append (script, "    ");
      report_bundle_append_python_string (script, entry->cell->id);
      g_string_append (script, ": (");
      report_bundle_append_python_string (script, entry->cell->database);
      g_string_append (script, ", ");
      report_bundle_append_python_string (script, entry->cell->frame);
      g_string_append (script, ", ");
      report_bundle_append_python_string_or_none (script, here ? entry->file : NULL);
      g_string_append (script, ", ");
      report_bundle_append_python_string_or_none (script, here ? entry->sha256 : NULL);
      g_string_append (script, "),\n");
    }
  g_string_append (script,
    "}\n"
    "# The cells: id, what it does, its code.\n"
    "CELLS = [\n");
  for (guint i = 0; i < report->cells->len; i++)
    {
      const ReportCell *cell = g_ptr_array_index (report->cells, i);

      if (!cell->succeeded || cell->code == NULL || !report_cell_approved (cell))
        continue;
      g_string_append (script, "    (");
      report_bundle_append_python_string (script, cell->id);
      g_string_append (script, ", ");
      report_bundle_append_python_string (script, cell->description);
      g_string_append (script, ",\n     ");
      report_bundle_append_python_lines (script, cell->code, "     ");
      g_string_append (script, "),\n");
    }
  g_string_append (script, "]\n");
  /* What nobody approved (OpenAI's hosted interpreter, a record that says so) is never code. */
  for (guint i = 0; i < report->cells->len; i++)
    {
      const ReportCell *cell = g_ptr_array_index (report->cells, i);
      g_auto(GStrv) lines = NULL;

      if (cell->code == NULL || report_cell_approved (cell))
        continue;
      g_string_append_printf (script, "\n# Cell %s is not run by this script. ", cell->id);
      report_bundle_append_comment (script, report_cell_unapproved_note (cell));
      lines = g_strsplit (cell->code, "\n", -1);
      for (guint k = 0; lines[k] != NULL; k++)
        {
          g_string_append (script, "#     ");
          report_bundle_append_comment (script, lines[k]);
        }
    }
  g_string_append (script, analysis_body);
  return g_string_free (script, FALSE);
}

/* ---- README.md ------------------------------------------------------------------------------- */

/* What README.md says of the SQL cells: where their results are and how to ask again. */
static void
report_bundle_readme_queries (GString     *text,
                              AssayReport *report,
                              GPtrArray   *queries,
                              gboolean     with_queries)
{
  gboolean all_here = TRUE;

  for (guint i = 0; i < queries->len; i++)
    all_here &= with_queries && ((BundleQuery *) g_ptr_array_index (queries, i))->sha256 != NULL;

  g_string_append_printf (text, "## %s\n\n", _("Queries"));
  g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE,
                                             "%u cell queried a database:",
                                             "%u cells queried databases:",
                                             queries->len), queries->len);
  g_string_append (text, "\n\n");
  for (guint i = 0; i < queries->len; i++)
    {
      const BundleQuery *entry = g_ptr_array_index (queries, i);

      g_string_append_printf (text, "- %s ", _("cell"));
      report_bundle_append_markdown_text (text, entry->cell->id);
      g_string_append (text, ": ");
      report_bundle_append_markdown_text (text, entry->cell->database);
      g_string_append (text, " → `");
      report_bundle_append_markdown_text (text, entry->cell->frame);
      g_string_append (text, "`");
      if (entry->cell->query_rows >= 0)
        {
          g_string_append (text, ", ");
          g_autofree char *rows = g_strdup_printf ("%" G_GINT64_FORMAT, entry->cell->query_rows);

          g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "%s row", "%s rows",
                                                     (gulong) MIN (entry->cell->query_rows, G_MAXLONG)),
                                  rows);
        }
      if (with_queries && entry->sha256 != NULL)
        g_string_append_printf (text, " (`%s`)", entry->file);
      else
        g_string_append_printf (text, " (%s)", _("its result is not in this bundle"));
      g_string_append_c (text, '\n');
    }
  g_string_append_c (text, '\n');
  if (all_here)
    g_string_append_printf (text, "%s\n\n",
                            _("Their results, as Assay loaded them into the analysis, are in queries/: "
                              "analysis.py loads them (with assay_frames.py, the loader Assay’s sandbox "
                              "uses), so the numbers are the ones the analysis saw."));
  else
    g_string_append_printf (text, "%s\n\n",
                            _("A result that is not in this bundle (export it with --with-data to put "
                              "them in) must be asked of its database again, below."));
  g_string_append_printf (text, "%s\n\n",
                          _("To ask the databases again instead, read-only, at the addresses the "
                            "analysis recorded or at others:"));
  g_string_append (text, "    python3 analysis.py --data-dir data --requery\n");
  for (guint i = 0; i < report->sources->len; i++)
    {
      const ReportSource *source = g_ptr_array_index (report->sources, i);
      g_autofree char *name = report_bundle_file_name (source->name);

      g_string_append_printf (text, "    python3 analysis.py --data-dir data --db %s=URL\n", name);
    }
  g_string_append_c (text, '\n');
  for (guint i = 0; i < report->sources->len; i++)
    {
      const ReportSource *source = g_ptr_array_index (report->sources, i);

      g_string_append (text, "- ");
      report_bundle_append_markdown_text (text, source->name);
      g_string_append (text, ": ");
      report_bundle_append_markdown_text (text, source->url ? source->url : "");
      g_string_append_c (text, '\n');
    }
  g_string_append_c (text, '\n');
  g_string_append_printf (text, "%s\n\n",
                          _("Asking again needs the Debian package python3-psycopg2 (PostgreSQL) or "
                            "python3-mysqldb (MySQL, MariaDB); SQLite needs nothing. Passwords come from "
                            "the URL, PGPASSWORD or ~/.pgpass, MYSQL_PWD or ~/.my.cnf, never from this "
                            "bundle. The Docker command above has no network: ask again on your own "
                            "machine."));
}

static char *
report_bundle_readme (AssayReport *report,
                      GPtrArray   *datasets,
                      GPtrArray   *queries,
                      const char  *docker_ref)
{
  GString *text = g_string_new ("# ");
  g_autofree char *date = report_format_date (report->created);
  guint n_cells = 0;
  gboolean any_missing = FALSE, any_changed = FALSE, data_in = FALSE;

  for (guint i = 0; i < report->cells->len; i++)
    if (((ReportCell *) g_ptr_array_index (report->cells, i))->succeeded)
      n_cells++;
  for (guint i = 0; i < datasets->len; i++)
    {
      const BundleDataset *entry = g_ptr_array_index (datasets, i);

      any_missing |= !entry->present;
      any_changed |= entry->dataset->changed;
      data_in |= entry->present && report->options.include_data;
    }

  report_bundle_append_markdown_text (text, report->title);
  g_string_append (text, "\n\n");
  g_string_append_printf (text, _("An analysis made in Assay; the session started %s. This folder "
                                  "runs it again without Assay."), date);
  g_string_append (text, "\n\n");

  if (report->questions->len > 0)
    {
      g_string_append_printf (text, "## %s\n\n", _("Questions"));
      for (guint i = 0; i < report->questions->len; i++)
        {
          const ReportQuestion *question = g_ptr_array_index (report->questions, i);

          g_string_append_printf (text, "%u. ", question->number);
          report_bundle_append_markdown_text (text, question->text);
          g_string_append_c (text, '\n');
        }
      g_string_append_c (text, '\n');
    }

  g_string_append_printf (text, "## %s\n\n", _("What is here"));
  g_string_append_printf (text, "- `notebook.ipynb`: %s\n",
                          _("the session as a Jupyter notebook, with its outputs"));
  g_string_append_printf (text, "- `report.pdf`: %s\n", _("the report"));
  g_string_append_printf (text, "- `analysis.py`: ");
  g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE,
                                             "the %u cell that succeeded, as a script",
                                             "the %u cells that succeeded, in the order they ran, as one script",
                                             n_cells), n_cells);
  g_string_append_c (text, '\n');
  g_string_append_printf (text, "- `datasets.sha256`: %s\n",
                          _("the SHA-256 of each dataset as it was when it was added to the session"));
  g_string_append_printf (text, "- `environment.txt`: %s\n",
                          _("the exact versions of the Python packages in Assay's sandbox image"));
  if (data_in)
    g_string_append_printf (text, "- `data/`: %s\n", _("the datasets"));
  if (queries->len > 0)
    g_string_append_printf (text, "- `assay_frames.py`: %s\n",
                            _("how Assay’s sandbox loads a query’s result into a DataFrame"));
  if (queries->len > 0)
    g_string_append_printf (text, "- `assay_sql_check.py`: %s\n",
                            _("the check Assay applies to a query before it asks a database, which "
                              "analysis.py applies before it asks one again"));
  if (queries->len > 0 && report->options.include_data)
    g_string_append_printf (text, "- `queries/`: %s\n", _("the results of the SQL cells, as Assay kept them"));
  g_string_append_c (text, '\n');

  if (datasets->len > 0)
    {
      g_string_append_printf (text, "## %s\n\n", _("Data"));
      g_string_append_printf (text, "%s\n\n",
                              _("In Assay the cells read their files at /data/<name>. analysis.py "
                                "finds them in the folder given with --data-dir instead, under the "
                                "same names:"));
      for (guint i = 0; i < datasets->len; i++)
        {
          const BundleDataset *entry = g_ptr_array_index (datasets, i);

          g_string_append_printf (text, "- `data/%s`", entry->file);
          if (g_strcmp0 (entry->file, entry->dataset->name) != 0)
            {
              g_string_append_printf (text, " (%s ", _("added to the session as"));
              report_bundle_append_markdown_text (text, entry->dataset->name);
              g_string_append_c (text, ')');
            }
          if (!entry->present)
            g_string_append_printf (text, ": %s", _("not in the session folder any more"));
          else if (entry->dataset->changed)
            g_string_append_printf (text, ": %s", _("changed since it was added to the session"));
          g_string_append_c (text, '\n');
        }
      g_string_append_c (text, '\n');
      if (!data_in)
        g_string_append_printf (text, "%s\n\n",
                                _("The datasets are not in this bundle (export it with --with-data to "
                                  "put them in). Copy them into data/ under these names."));
      else if (any_missing)
        g_string_append_printf (text, "%s\n\n",
                                _("A dataset that is no longer in the session folder is not in this "
                                  "bundle: copy it into data/ under its name."));
      if (any_changed)
        g_string_append_printf (text, "%s\n\n",
                                _("A dataset that changed since it was added to the session is not the "
                                  "file the analysis read: the check below and analysis.py say so, and "
                                  "the results may differ."));
    }

  if (queries->len > 0)
    report_bundle_readme_queries (text, report, queries, report->options.include_data);

  g_string_append_printf (text, "## %s\n\n", _("Run it"));
  g_string_append_printf (text, "%s\n\n",
                          _("With Python 3 and the Debian packages python3-pandas, python3-numpy "
                            "and python3-matplotlib (and any other package environment.txt lists "
                            "that the code imports):"));
  g_string_append (text, "    python3 analysis.py --data-dir data\n\n");
  g_string_append_printf (text, "%s\n\n",
                          _("Or in the same image as Assay's sandbox, without network, with Docker:"));
  g_string_append_printf (text,
                          "    docker run --rm --network none -v \"$PWD\":/bundle -w /bundle %s "
                          "python3 analysis.py --data-dir data\n\n",
                          docker_ref ? docker_ref : "assay-sandbox:latest");
  g_string_append_printf (text, "%s\n\n",
                          _("Each cell's output follows a line “# ---- cell ID: description”. The "
                            "files the cells write, and their figures, go to outputs/ (--out DIR). A "
                            "cell that fails stops the script with exit status 1 and its id. Before "
                            "the first cell the script checks each dataset's SHA-256 and warns of a "
                            "difference; with --strict it stops."));

  g_string_append_printf (text, "## %s\n\n", _("Check the data"));
  g_string_append_printf (text, "%s\n\n", _("In this folder:"));
  g_string_append (text, "    sha256sum -c datasets.sha256\n");
  return g_string_free (text, FALSE);
}

/* ---- the zip --------------------------------------------------------------------------------- */

typedef struct
{
  AssayProgressFunc  progress;
  gpointer           progress_data;
  double             from;
  double             to;
  double             last;   /* never back: a writer's own estimate may step back */
} BundleProgress;

static void
report_bundle_scaled_progress (double      fraction,
                               const char *message,
                               gpointer    user_data)
{
  BundleProgress *range = user_data;

  if (fraction >= 1.0)
    return;   /* the writer's "Done" is not the bundle's */
  range->last = MAX (range->last, range->from + (range->to - range->from) * CLAMP (fraction, 0.0, 1.0));
  range->progress (range->last, message, range->progress_data);
}

typedef gboolean (*BundleWriter) (AssayReport *, GOutputStream *, GCancellable *, GError **);

/* What another writer makes of the same snapshot, in memory, its progress within FROM..TO. */
static GBytes *
report_bundle_render (AssayReport   *report,
                      BundleWriter   writer,
                      double         from,
                      double         to,
                      GCancellable  *cancellable,
                      GError       **error)
{
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  BundleProgress range = { report->progress, report->progress_data, from, to, from };
  gboolean ok;

  if (report->progress != NULL)
    {
      report->progress = report_bundle_scaled_progress;
      report->progress_data = &range;
    }
  ok = writer (report, out, cancellable, error);
  report->progress = range.progress;
  report->progress_data = range.progress_data;
  if (!ok || !g_output_stream_close (out, cancellable, error))
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

typedef struct
{
  AssayReport  *report;
  GCancellable *cancellable;
  zip_t        *archive;
  const char   *top;
  time_t        mtime;
  GPtrArray    *buffers;   /* GBytes* that the archive reads from until it is closed */
  GError       *error;
} Bundle;

static gboolean
report_bundle_set_zip_error (Bundle     *bundle,
                             const char *entry)
{
  if (bundle->error == NULL)
    g_set_error (&bundle->error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                 _("Cannot add %s to the bundle: %s"), entry, zip_strerror (bundle->archive));
  return FALSE;
}

/* Adds SOURCE as TOP/NAME: a regular file, 0644, dated as the session. */
static gboolean
report_bundle_add_source (Bundle       *bundle,
                          const char   *name,
                          zip_source_t *source)
{
  g_autofree char *entry = g_strconcat (bundle->top, "/", name, NULL);
  zip_int64_t index;

  index = zip_file_add (bundle->archive, entry, source, ZIP_FL_ENC_UTF_8);
  if (index < 0)
    {
      zip_source_free (source);
      return report_bundle_set_zip_error (bundle, entry);
    }
  if (zip_file_set_external_attributes (bundle->archive, index, 0, ZIP_OPSYS_UNIX,
                                        (zip_uint32_t) (S_IFREG | BUNDLE_FILE_MODE) << 16) != 0 ||
      zip_file_set_mtime (bundle->archive, index, bundle->mtime, 0) != 0)
    return report_bundle_set_zip_error (bundle, entry);
  return TRUE;
}

static gboolean
report_bundle_add_bytes (Bundle     *bundle,
                         const char *name,
                         GBytes     *bytes)
{
  gsize size;
  gconstpointer data = g_bytes_get_data (bytes, &size);
  zip_source_t *source;

  g_ptr_array_add (bundle->buffers, g_bytes_ref (bytes));
  source = zip_source_buffer (bundle->archive, size ? data : "", size, 0);
  if (source == NULL)
    return report_bundle_set_zip_error (bundle, name);
  return report_bundle_add_source (bundle, name, source);
}

static gboolean
report_bundle_add_text (Bundle     *bundle,
                        const char *name,
                        char       *text)    /* taken */
{
  g_autoptr(GBytes) bytes = g_bytes_new_take (text, strlen (text));

  return report_bundle_add_bytes (bundle, name, bytes);
}

/* A file opened as FD, read by the archive when it is written, as TOP/NAME. */
static gboolean
report_bundle_add_fd (Bundle     *bundle,
                      const char *name,
                      int         fd)
{
  zip_source_t *source;
  FILE *file = fdopen (fd, "rb");

  if (file == NULL)
    {
      close (fd);
      return report_bundle_set_zip_error (bundle, name);
    }
  source = zip_source_filep (bundle->archive, file, 0, -1);
  if (source == NULL)
    {
      fclose (file);
      return report_bundle_set_zip_error (bundle, name);
    }
  return report_bundle_add_source (bundle, name, source);
}

/* The dataset's file, read by the archive when it is written. */
static gboolean
report_bundle_add_dataset (Bundle              *bundle,
                           const BundleDataset *entry)
{
  g_autofree char *name = g_strconcat ("data/", entry->file, NULL);
  int fd = report_bundle_open_dataset (entry->dataset);

  if (fd < 0)
    return TRUE;   /* gone since it was hashed: the README says it is not here */
  return report_bundle_add_fd (bundle, name, fd);
}

/* A SQL cell's cached result, when it was there to be hashed. */
static gboolean
report_bundle_add_query (Bundle            *bundle,
                         const BundleQuery *entry)
{
  int fd;

  if (entry->sha256 == NULL)
    return TRUE;   /* README and analysis.py say it is not here */
  fd = report_bundle_open_query (entry);
  if (fd < 0)
    return TRUE;
  return report_bundle_add_fd (bundle, entry->file, fd);
}

/* assay_frames.py, the sandbox's loader of query results, from the recipe Assay uses. */
static gboolean
report_bundle_add_frames_loader (Bundle *bundle)
{
  g_autoptr(AssaySandboxImage) image = assay_sandbox_image_new (NULL);
  g_autofree char *path = g_build_filename (assay_sandbox_image_get_recipe_dir (image),
                                            "kernel", "assay_frames.py", NULL);
  g_autoptr(GError) local_error = NULL;
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, &local_error))
    {
      g_set_error (&bundle->error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                   _("Cannot add the loader of query results to the bundle: %s"), local_error->message);
      return FALSE;
    }
  return report_bundle_add_text (bundle, "assay_frames.py", contents);
}

/* assay_sql_check.py, the statement check analysis.py applies before it asks a database. */
static gboolean
report_bundle_add_sql_check (Bundle *bundle)
{
  g_autoptr(GBytes) check = g_resource_lookup_data (assay_report_get_resource (),
                                                    "/org/assay/Assay/report/assay_sql_check.py",
                                                    G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

  g_assert (check != NULL);   /* compiled in */
  return report_bundle_add_bytes (bundle, "assay_sql_check.py", check);
}

static void
report_bundle_zip_progress (zip_t  *archive,
                            double  fraction,
                            void   *user_data)
{
  Bundle *bundle = user_data;

  assay_report_progress (bundle->report, 0.6 + 0.35 * fraction, _("Packing the bundle"));
}

static int
report_bundle_zip_cancelled (zip_t *archive,
                             void  *user_data)
{
  Bundle *bundle = user_data;

  return g_cancellable_is_cancelled (bundle->cancellable) ? 1 : 0;
}

/* Fills the archive; FALSE with bundle->error set. */
static gboolean
report_bundle_fill (Bundle *bundle)
{
  AssayReport *report = bundle->report;
  GCancellable *cancellable = bundle->cancellable;
  g_autoptr(GPtrArray) datasets = NULL;
  g_autoptr(GPtrArray) queries = NULL;
  g_autoptr(GBytes) pdf = NULL;
  g_autoptr(GBytes) notebook = NULL;
  g_autofree char *docker_ref = NULL;
  char *environment;

  assay_report_progress (report, 0.0, _("Reading the sandbox image's package versions"));
  environment = report_bundle_environment (&docker_ref);
  if (!report_bundle_add_text (bundle, "environment.txt", environment))
    return FALSE;

  assay_report_progress (report, 0.02, _("Hashing the datasets"));
  datasets = report_bundle_datasets (report, cancellable, &bundle->error);
  if (datasets == NULL)
    return FALSE;
  queries = report_bundle_queries (report, cancellable, &bundle->error);
  if (queries == NULL)
    return FALSE;
  if (queries->len > 0 && (!report_bundle_add_frames_loader (bundle) || !report_bundle_add_sql_check (bundle)))
    return FALSE;

  notebook = report_bundle_render (report, assay_report_write_ipynb, 0.05, 0.15, cancellable, &bundle->error);
  if (notebook == NULL || !report_bundle_add_bytes (bundle, "notebook.ipynb", notebook))
    return FALSE;
  pdf = report_bundle_render (report, assay_report_write_pdf, 0.15, 0.55, cancellable, &bundle->error);
  if (pdf == NULL || !report_bundle_add_bytes (bundle, "report.pdf", pdf))
    return FALSE;

  assay_report_progress (report, 0.55, _("Writing the script"));
  if (!report_bundle_add_text (bundle, "analysis.py",
                               report_bundle_analysis_script (report, datasets, queries,
                                                              report->options.include_data)) ||
      !report_bundle_add_text (bundle, "datasets.sha256",
                               report_bundle_sha256_list (datasets, queries, report->options.include_data)) ||
      !report_bundle_add_text (bundle, "README.md", report_bundle_readme (report, datasets, queries, docker_ref)))
    return FALSE;

  if (report->options.include_data)
    {
      for (guint i = 0; i < datasets->len; i++)
        if (!report_bundle_add_dataset (bundle, g_ptr_array_index (datasets, i)))
          return FALSE;
      for (guint i = 0; i < queries->len; i++)
        if (!report_bundle_add_query (bundle, g_ptr_array_index (queries, i)))
          return FALSE;
    }
  return !g_cancellable_set_error_if_cancelled (cancellable, &bundle->error);
}

/* Copies the finished archive at PATH into OUT. */
static gboolean
report_bundle_copy (const char    *path,
                    GOutputStream *out,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(GInputStream) in = NULL;
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);

  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s", g_strerror (saved));
      return FALSE;
    }
  in = g_unix_input_stream_new (fd, TRUE);
  return g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE, cancellable, error) >= 0;
}

gboolean
assay_report_write_bundle (AssayReport   *report,
                           GOutputStream *out,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_autoptr(GPtrArray) buffers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autofree char *top = report_bundle_folder_name (report->title);
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  Bundle bundle = { report, cancellable, NULL, top, 0, buffers, NULL };
  gboolean ok = FALSE;
  int zip_error = 0;

  /* libzip writes to a file of its own beside PATH and renames it at the end: both in a
   * folder only we can enter, the archive made 0600, removed once copied into OUT. */
  dir = g_dir_make_tmp ("assay-bundle-XXXXXX", error);
  if (dir == NULL)
    return FALSE;
  path = g_build_filename (dir, "bundle.zip", NULL);
  bundle.mtime = report->created > 0 ? (time_t) (report->created / G_USEC_PER_SEC) : time (NULL);

  bundle.archive = zip_open (path, ZIP_CREATE | ZIP_EXCL, &zip_error);
  if (bundle.archive == NULL)
    {
      zip_error_t details;

      zip_error_init_with_code (&details, zip_error);
      g_set_error (&bundle.error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                   _("Cannot make the bundle in %s: %s"), dir, zip_error_strerror (&details));
      zip_error_fini (&details);
    }
  else if (!report_bundle_fill (&bundle))
    zip_discard (bundle.archive);
  else
    {
      zip_register_progress_callback_with_state (bundle.archive, 0.01, report_bundle_zip_progress, NULL, &bundle);
      zip_register_cancel_callback_with_state (bundle.archive, report_bundle_zip_cancelled, NULL, &bundle);
      if (zip_close (bundle.archive) != 0)
        {
          if (!g_cancellable_set_error_if_cancelled (cancellable, &bundle.error))
            g_set_error (&bundle.error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                         _("Cannot make the bundle in %s: %s"), dir, zip_strerror (bundle.archive));
          zip_discard (bundle.archive);
        }
      else
        {
          g_chmod (path, 0600);
          assay_report_progress (report, 0.95, _("Copying the bundle"));
          ok = report_bundle_copy (path, out, cancellable, &bundle.error);
        }
    }
  bundle.archive = NULL;

  /* Nothing stays behind, whatever happened: the archive, libzip's partial file, the folder. */
  {
    g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
    const char *name;

    while (listing && (name = g_dir_read_name (listing)) != NULL)
      {
        g_autofree char *leftover = g_build_filename (dir, name, NULL);

        g_unlink (leftover);
      }
    g_rmdir (dir);
  }
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&bundle.error));
  return ok;
}
