/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The notebook export: nbformat 4.5, the conversation as Markdown cells and every cell
 * that ran as a code cell with its outputs, so the analysis re-runs in JupyterLab. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"
#include "assay-cell-output.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "assay-report-private.h"
#include "assay-json.h"

/* nbformat's multi-line string: a list of lines, each but the last ending in "\n". */
static JsonNode *
assay_report_ipynb_multiline (const char *text)
{
  JsonArray *lines = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);
  const char *p = text ? text : "";

  while (*p)
    {
      const char *nl = strchr (p, '\n');
      gsize len = nl ? (gsize) (nl - p + 1) : strlen (p);
      g_autofree char *line = g_utf8_make_valid (p, len);

      json_array_add_string_element (lines, line);
      p += len;
    }
  json_node_take_array (node, lines);
  return node;
}

static JsonObject *
assay_report_ipynb_new_cell (const char *type,
                             const char *id,
                             const char *source)
{
  JsonObject *cell = json_object_new ();

  json_object_set_string_member (cell, "cell_type", type);
  json_object_set_string_member (cell, "id", id);
  json_object_set_object_member (cell, "metadata", json_object_new ());
  json_object_set_member (cell, "source", assay_report_ipynb_multiline (source));
  return cell;
}

static void
assay_report_ipynb_add_markdown (JsonArray  *cells,
                                 guint      *counter,
                                 const char *source)
{
  g_autofree char *id = g_strdup_printf ("md-%u", ++*counter);

  json_array_add_object_element (cells, assay_report_ipynb_new_cell ("markdown", id, source));
}

static gboolean
assay_report_ipynb_valid_mime (const char *mime)
{
  const char *slash = strchr (mime, '/');

  if (slash == NULL || slash == mime || slash[1] == '\0')
    return FALSE;
  for (const char *p = mime; *p; p++)
    if (!g_ascii_isalnum (*p) && !strchr ("/-+.", *p))
      return FALSE;
  return TRUE;
}

static gboolean
assay_report_ipynb_is_json_mime (const char *mime)
{
  return g_str_has_prefix (mime, "application/") && g_str_has_suffix (mime, "json");
}

/* What the sandbox displayed is untrusted, and a notebook is opened in viewers that may run
 * what it holds (not every one asks Jupyter's trust question). Script types and SVG (which
 * can carry scripts) are left out; HTML is kept only as the table it shows, written anew by
 * us with every cell escaped; Markdown only when it holds no HTML. text/plain stays. */
static gboolean
assay_report_ipynb_is_active_mime (const char *mime)
{
  return strstr (mime, "javascript") != NULL || strstr (mime, "ecmascript") != NULL ||
         g_str_equal (mime, "image/svg+xml");
}

static char *
assay_report_ipynb_safe_html (const char *html)
{
  g_autoptr(AssayTable) table = assay_html_table_extract (html, strlen (html));
  GString *clean;

  if (table == NULL)
    return NULL;
  clean = g_string_new (NULL);
  report_append_table_html (clean, table);
  return g_string_free (clean, FALSE);
}

/* A data bundle, with only what the schema allows: strings (as lists of lines; images as
 * one string) and JSON objects for the JSON types. */
static JsonObject *
assay_report_ipynb_copy_bundle (JsonObject *data)
{
  JsonObject *copy = json_object_new ();
  g_autoptr(GList) members = json_object_get_members (data);

  for (GList *l = members; l; l = l->next)
    {
      const char *mime = l->data;
      JsonNode *value = json_object_get_member (data, mime);

      if (!assay_report_ipynb_valid_mime (mime) || assay_report_ipynb_is_active_mime (mime))
        continue;
      if (assay_report_ipynb_is_json_mime (mime))
        {
          if (JSON_NODE_HOLDS_OBJECT (value))
            json_object_set_member (copy, mime, json_node_copy (value));
          continue;
        }
      {
        g_autofree char *text = assay_json_dup_text (value);

        if (text == NULL)
          continue;
        if (g_str_equal (mime, "text/html"))
          {
            g_autofree char *clean = assay_report_ipynb_safe_html (text);

            if (clean != NULL)
              json_object_set_member (copy, mime, assay_report_ipynb_multiline (clean));
            continue;
          }
        if (g_str_equal (mime, "text/markdown") && strchr (text, '<') != NULL)
          continue;
        if (g_str_has_prefix (mime, "image/"))
          {
            /* Base64 without line ends, as Jupyter writes it. */
            GString *clean = g_string_new (NULL);

            for (const char *p = text; *p; p++)
              if (g_ascii_isalnum (*p) || *p == '+' || *p == '/' || *p == '=')
                g_string_append_c (clean, *p);
            json_object_set_string_member (copy, mime, clean->str);
            g_string_free (clean, TRUE);
          }
        else
          json_object_set_member (copy, mime, assay_report_ipynb_multiline (text));
      }
    }
  return copy;
}

static JsonArray *
assay_report_ipynb_copy_outputs (const ReportCell *cell)
{
  JsonArray *outputs = json_array_new ();
  guint n = json_array_get_length (cell->outputs);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (cell->outputs, i);
      g_autoptr(AssayCellOutput) output = assay_cell_output_read (node);
      JsonObject *copy;

      if (output == NULL || output->kind == ASSAY_CELL_OUTPUT_OTHER)
        continue;

      /* The snapshot joined each run of one stream into one output already. */
      if (output->kind == ASSAY_CELL_OUTPUT_STREAM)
        {
          copy = json_object_new ();
          json_object_set_string_member (copy, "output_type", "stream");
          json_object_set_string_member (copy, "name", output->is_stderr ? "stderr" : "stdout");
          json_object_set_member (copy, "text", assay_report_ipynb_multiline (output->text));
          json_array_add_object_element (outputs, copy);
          continue;
        }

      if (output->kind == ASSAY_CELL_OUTPUT_RESULT || output->kind == ASSAY_CELL_OUTPUT_DISPLAY)
        {
          JsonObject *metadata = assay_json_get_object (json_node_get_object (node), "metadata");

          if (output->data == NULL)
            continue;
          copy = json_object_new ();
          json_object_set_string_member (copy, "output_type",
                                         output->kind == ASSAY_CELL_OUTPUT_RESULT ? "execute_result"
                                                                                  : "display_data");
          json_object_set_object_member (copy, "data", assay_report_ipynb_copy_bundle (output->data));
          json_object_set_member (copy, "metadata",
                                  metadata != NULL
                                  ? json_node_copy (json_object_get_member (json_node_get_object (node), "metadata"))
                                  : json_node_init_object (json_node_alloc (), json_object_new ()));
          if (output->kind == ASSAY_CELL_OUTPUT_RESULT)
            json_object_set_int_member (copy, "execution_count", cell->execution_count);
          json_array_add_object_element (outputs, copy);
        }
      else
        {
          JsonArray *lines = json_array_new ();

          copy = json_object_new ();
          json_object_set_string_member (copy, "output_type", "error");
          json_object_set_string_member (copy, "ename", output->ename);
          json_object_set_string_member (copy, "evalue", output->evalue);
          for (guint j = 0; j < output->traceback->len; j++)
            json_array_add_string_element (lines, g_ptr_array_index (output->traceback, j));
          json_object_set_array_member (copy, "traceback", lines);
          json_array_add_object_element (outputs, copy);
        }
    }

  /* The figures the cell saved as files are shown too, as Jupyter would show a plot. */
  for (guint i = 0; i < cell->figures->len; i++)
    {
      const ReportFigure *figure = g_ptr_array_index (cell->figures, i);
      g_autoptr(GBytes) png = NULL;
      g_autofree char *base64 = NULL;
      JsonObject *copy, *data, *metadata, *assay;
      guint width, height;

      if (figure->path == NULL)
        continue;
      png = report_figure_load (figure, &width, &height, NULL);
      if (png == NULL)
        continue;
      base64 = g_base64_encode (g_bytes_get_data (png, NULL), g_bytes_get_size (png));
      copy = json_object_new ();
      data = json_object_new ();
      metadata = json_object_new ();
      assay = json_object_new ();
      json_object_set_string_member (data, "image/png", base64);
      json_object_set_member (data, "text/plain", assay_report_ipynb_multiline (figure->caption));
      json_object_set_string_member (assay, "artifact", figure->caption);
      json_object_set_object_member (metadata, "assay", assay);
      json_object_set_string_member (copy, "output_type", "display_data");
      json_object_set_object_member (copy, "data", data);
      json_object_set_object_member (copy, "metadata", metadata);
      json_array_add_object_element (outputs, copy);
    }
  return outputs;
}

static char *
assay_report_ipynb_python_string (const char *text)
{
  /* A JSON string literal is a valid Python one. */
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);

  return json_to_string (node, FALSE);
}

static char *
assay_report_ipynb_intro_markdown (AssayReport *report)
{
  GString *text = g_string_new (NULL);
  g_autofree char *date = report_format_date (report->created);

  g_string_append_printf (text, "# %s\n\n", report->title);
  g_string_append_printf (text, _("*Exported from Assay; the session started %s.*"), date);
  g_string_append (text, "\n\n");
  if (report->ran_in != NULL)
    {
      /* A code span: nothing in it is Markdown or HTML; it cannot hold a backquote or a line. */
      g_autofree char *where = g_strdup (report->ran_in);

      g_strdelimit (where, "`\n\r", ' ');
      g_string_append_printf (text, _("The code ran in `%s`."), where);
      g_string_append (text, "\n\n");
    }
  if (report->datasets->len > 0)
    {
      g_string_append_printf (text, _("**Data.** The code reads its files from `/data/`, where "
                                      "Assay showed them to the sandbox. Copies are in the "
                                      "session folder, `%s/data/`:"), report->session_dir);
      g_string_append (text, "\n\n");
      for (guint i = 0; i < report->datasets->len; i++)
        {
          g_autofree char *summary = report_dataset_summary (g_ptr_array_index (report->datasets, i));

          g_string_append_printf (text, "- %s\n", summary);
        }
      g_string_append_printf (text, "\n%s\n",
                              _("Run the next cell to check that the files are where the "
                                "code expects them."));
    }
  return g_string_free (text, FALSE);
}

static char *
assay_report_ipynb_setup_code (AssayReport *report)
{
  GString *code = g_string_new (NULL);
  g_autofree char *data_dir = g_build_filename (report->session_dir, "data", NULL);
  g_autofree char *quoted = g_shell_quote (data_dir);

  g_string_append (code, "# The analysis read its data from /data. To re-run it here, make the files\n"
                         "# available there, for instance (once, in a terminal):\n");
  g_string_append_printf (code, "#   sudo ln -s %s /data\n", quoted);
  g_string_append (code, "# The cells below are the analyst's code, unchanged.\n"
                         "import os\n\nfor name in [");
  for (guint i = 0; i < report->datasets->len; i++)
    {
      const ReportDataset *dataset = g_ptr_array_index (report->datasets, i);
      g_autofree char *literal = assay_report_ipynb_python_string (dataset->name);

      g_string_append_printf (code, "%s%s", i ? ", " : "", literal);
    }
  g_string_append (code, "]:\n"
                         "    path = os.path.join(\"/data\", name)\n"
                         "    print((\"found:  \" if os.path.exists(path) else \"MISSING: \") + path)");
  return g_string_free (code, FALSE);
}

/* A cell id safe in a link target and an HTML id: letters, digits, "-" and "_". */
static gboolean
assay_report_ipynb_plain_id (const char *id)
{
  if (id == NULL || *id == '\0' || strlen (id) > 64)
    return FALSE;
  for (const char *p = id; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

/* The answer's Markdown with each traced number a link to the cell that printed it, and each
 * untraced one a footnote. */
static char *
assay_report_ipynb_traced_answer (const char            *text,
                                  const AssayProvenance *provenance)
{
  GString *out = g_string_new (NULL);
  GString *notes = g_string_new (NULL);
  gsize at = 0, length = strlen (text);
  guint n_untraced = 0;

  for (guint i = 0; provenance != NULL && i < provenance->numbers->len; i++)
    {
      const AssayTracedNumber *traced = g_ptr_array_index (provenance->numbers, i);

      if (traced->start < at || traced->end > length)
        continue;
      g_string_append_len (out, text + at, traced->start - at);
      if (traced->found && assay_report_ipynb_plain_id (traced->cell_id))
        g_string_append_printf (out, "[%s](#cell-%s)", traced->text, traced->cell_id);
      else if (!traced->found)
        {
          g_autofree char *note = report_untraced_note (traced);

          n_untraced++;
          g_string_append_printf (out, "%s<sup>%u</sup>", traced->text, n_untraced);
          g_string_append_printf (notes, "<sup>%u</sup> %s  \n", n_untraced, note);
        }
      else
        g_string_append (out, traced->text);
      at = traced->end;
    }
  g_string_append_len (out, text + at, length - at);
  if (notes->len > 0)
    g_string_append_printf (out, "\n\n---\n\n%s", notes->str);
  g_string_free (notes, TRUE);
  return g_string_free (out, FALSE);
}

/* The cells an answer links to. */
static GHashTable *
assay_report_ipynb_linked_cells (AssayReport *report)
{
  GHashTable *linked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < report->questions->len; i++)
    {
      ReportQuestion *question = g_ptr_array_index (report->questions, i);

      for (guint j = 0; j < question->items->len; j++)
        {
          ReportItem *item = g_ptr_array_index (question->items, j);

          for (guint k = 0; item->provenance != NULL && k < item->provenance->numbers->len; k++)
            {
              const AssayTracedNumber *traced = g_ptr_array_index (item->provenance->numbers, k);

              if (traced->found && assay_report_ipynb_plain_id (traced->cell_id))
                g_hash_table_add (linked, g_strdup (traced->cell_id));
            }
        }
    }
  return linked;
}

/* TEXT as Markdown that shows it literally (it may come from a shared session): a backslash
 * before each character that can start emphasis, code, a link, an HTML tag, an entity or
 * math, and before what would make its start a heading, a list or a quote; line ends as
 * spaces. Other punctuation is left as it is, so the notebook's source stays readable. */
static char *
assay_report_ipynb_markdown_literal (const char *text)
{
  GString *out = g_string_new (NULL);
  const char *start = text != NULL ? text : "";
  const char *digits = start;

  while (g_ascii_isdigit (*digits))
    digits++;
  for (const char *p = start; *p != '\0'; p++)
    {
      gboolean starts_block = (p == start && strchr ("#+-=>", *p) != NULL) ||
                              (p == digits && p > start && (*p == '.' || *p == ')'));

      if (*p == '\n' || *p == '\r')
        g_string_append_c (out, ' ');
      else
        {
          if (strchr ("\\`*_[]<>&|~$", *p) != NULL || starts_block)
            g_string_append_c (out, '\\');
          g_string_append_c (out, *p);
        }
    }
  return g_string_free (out, FALSE);
}

/* TEXT in a fenced block whose fence is longer than any run of backticks in it, so nothing
 * inside can close it: viewers show it as it is and render no HTML of it. */
static void
assay_report_ipynb_append_fenced (GString    *markdown,
                                  const char *text)
{
  guint longest = 0, run = 0;
  g_autofree char *fence = NULL;
  gsize length = strlen (text);

  for (const char *p = text; *p != '\0'; p++)
    {
      run = *p == '`' ? run + 1 : 0;
      longest = MAX (longest, run);
    }
  fence = g_strnfill (MAX (3, longest + 1), '`');
  g_string_append_printf (markdown, "%s\n%s%s%s\n\n", fence, text,
                          length > 0 && text[length - 1] != '\n' ? "\n" : "", fence);
}

/* TEXT made literal, between OPEN and CLOSE (Markdown of ours). */
static void
assay_report_ipynb_append_literal (GString    *markdown,
                                   const char *open,
                                   const char *text,
                                   const char *close)
{
  g_autofree char *literal = assay_report_ipynb_markdown_literal (text);

  g_string_append (markdown, open);
  g_string_append (markdown, literal);
  g_string_append (markdown, close);
}

/* A SQL cell, which a notebook cannot run: the query shown above the code that loads its
 * result as Assay's sandbox did. */
static char *
assay_report_ipynb_query_markdown (const ReportCell *cell)
{
  GString *markdown = g_string_new (NULL);

  assay_report_ipynb_append_literal (markdown, "**", _("SQL on the database"), "** ");
  assay_report_ipynb_append_literal (markdown, "", cell->database ? cell->database : "", " → ");
  assay_report_ipynb_append_literal (markdown, "*", cell->frame ? cell->frame : "", "*");
  if (cell->query_rows >= 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, cell->query_rows);
      g_autofree char *rows = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s row", "%s rows",
                                                            (gulong) MIN (cell->query_rows, G_MAXLONG)),
                                               count);

      g_string_append_printf (markdown, " (%s)", rows);
    }
  g_string_append (markdown, "\n\n");
  assay_report_ipynb_append_fenced (markdown, cell->code ? cell->code : "");
  return g_string_free (markdown, FALSE);
}

static gboolean
assay_report_ipynb_is_identifier (const char *name)
{
  if (name == NULL || !(g_ascii_isalpha (*name) || *name == '_'))
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!(g_ascii_isalnum (*p) || *p == '_'))
      return FALSE;
  return TRUE;
}

/* Python that loads a SQL cell's result from queries/cell-N.aqr, where the reproducible
 * bundle puts it beside the notebook with assay_frames.py. */
static char *
assay_report_ipynb_query_loader (const ReportCell *cell)
{
  g_autofree char *path = g_strdup_printf ("queries/cell-%u.aqr", cell->execution_count);
  g_autofree char *literal = assay_report_ipynb_python_string (path);
  g_autofree char *frame = assay_report_ipynb_python_string (cell->frame ? cell->frame : "result");
  GString *code = g_string_new (NULL);

  g_string_append (code, "# The query above ran on the database in Assay; its result is loaded here as Assay's\n"
                         "# sandbox loaded it (the reproducible bundle holds queries/ and assay_frames.py).\n"
                         "import assay_frames\n");
  if (assay_report_ipynb_is_identifier (cell->frame))
    g_string_append_printf (code, "%s = assay_frames.load(%s)\nassay_frames.show(%s)\n",
                            cell->frame, literal, cell->frame);
  else
    g_string_append_printf (code, "globals()[%s] = assay_frames.load(%s)\nassay_frames.show(globals()[%s])\n",
                            frame, literal, frame);
  return g_string_free (code, FALSE);
}

/* "What changed", as a Markdown table; every text from the session made literal. */
static char *
assay_report_ipynb_changes_markdown (AssayReport *report)
{
  GString *markdown = g_string_new (NULL);
  g_autofree char *intro = report_changes_intro (report);

  g_string_append_printf (markdown, "## %s\n\n", report_changes_title ());
  assay_report_ipynb_append_literal (markdown, "", intro, "\n\n");
  for (guint i = 0; i < report->rerun_notes->len; i++)
    assay_report_ipynb_append_literal (markdown, "- ", g_ptr_array_index (report->rerun_notes, i), "\n");
  if (report->rerun_notes->len > 0)
    g_string_append_c (markdown, '\n');
  if (report->changes->len == 0)
    return g_string_free (markdown, FALSE);
  g_string_append_printf (markdown, "| %s | %s | %s | %s | %s | %s | %s | %s |\n|---:|:---|---:|---:|---:|---:|:---|:---|\n",
                          _("Question"), _("Number"), _("Before"), _("After"), _("Change"), _("Change %"), _("Cell"),
                          _("In the answer"));
  for (guint i = 0; i < report->changes->len; i++)
    {
      const AssaySessionChange *change = g_ptr_array_index (report->changes, i);
      g_autofree char *delta = report_change_delta (change);
      g_autofree char *percent = report_change_percent (change);

      g_autofree char *label = report_change_label (change);

      g_string_append_printf (markdown, "| %u ", change->question);
      assay_report_ipynb_append_literal (markdown, "| ", label, " ");
      assay_report_ipynb_append_literal (markdown, "| ", change->before_text, " ");
      if (change->stale || change->after == change->before)
        assay_report_ipynb_append_literal (markdown, "| ", change->stale ? _("not found again") : change->after_text, " ");
      else
        assay_report_ipynb_append_literal (markdown, "| **", change->after_text, "** ");
      assay_report_ipynb_append_literal (markdown, "| ", delta, " ");
      assay_report_ipynb_append_literal (markdown, "| ", percent, " ");
      assay_report_ipynb_append_literal (markdown, "| ", change->cell_id != NULL ? change->cell_id : "", " ");
      assay_report_ipynb_append_literal (markdown, "| ", change->sentence != NULL ? change->sentence : "", " |\n");
    }
  return g_string_free (markdown, FALSE);
}

static void
assay_report_ipynb_append_request_entry (GString                  *markdown,
                                         const ReportRequestEntry *entry)
{
  if (entry->label == NULL)
    {
      assay_report_ipynb_append_literal (markdown, "*", entry->head, "*\n\n");
      return;
    }
  assay_report_ipynb_append_literal (markdown, "**", entry->label, "**\n\n");
  if (*entry->head != '\0')
    assay_report_ipynb_append_fenced (markdown, entry->head);
  if (entry->cut_note != NULL)
    {
      assay_report_ipynb_append_literal (markdown, "*", entry->cut_note, "*\n\n");
      assay_report_ipynb_append_fenced (markdown, entry->tail);
    }
}

static char *
assay_report_ipynb_request_markdown (const ReportRequest *request)
{
  GString *markdown = g_string_new (NULL);

  assay_report_ipynb_append_literal (markdown, "### ", request->heading, "\n\n");
  assay_report_ipynb_append_literal (markdown, "", request->meta, "");
  if (request->tokens != NULL)
    assay_report_ipynb_append_literal (markdown, "  \n", request->tokens, "");
  g_string_append (markdown, "\n\n");
  if (request->problem != NULL)
    assay_report_ipynb_append_literal (markdown, "**", request->problem, "**\n\n");
  if (request->system_note != NULL)
    assay_report_ipynb_append_literal (markdown, "*", request->system_note, "*\n\n");
  if (request->added_note != NULL)
    assay_report_ipynb_append_literal (markdown, "*", request->added_note, "*\n\n");
  for (guint i = 0; i < request->entries->len; i++)
    assay_report_ipynb_append_request_entry (markdown, g_ptr_array_index (request->entries, i));
  while (markdown->len > 0 && markdown->str[markdown->len - 1] == '\n')
    g_string_truncate (markdown, markdown->len - 1);
  return g_string_free (markdown, FALSE);
}

static char *
assay_report_ipynb_proposal_markdown (AssayReport          *report,
                                      const ReportProposal *proposal)
{
  GString *markdown = g_string_new (NULL);
  g_autofree char *heading = report_proposal_heading (proposal);
  g_autofree char *decision = report_proposal_decision (proposal);
  g_autofree char *reason = report_proposal_reason (proposal);

  assay_report_ipynb_append_literal (markdown, "**", heading, "**  \n");
  assay_report_ipynb_append_literal (markdown, "", decision, "");
  if (reason != NULL)
    assay_report_ipynb_append_literal (markdown, "  \n", reason, "");
  g_string_append (markdown, "\n\n");
  if (proposal->decision == ASSAY_DECISION_REJECTED && report->options.include_code &&
      proposal->proposed_code != NULL)
    {
      assay_report_ipynb_append_literal (markdown, "*", report_proposal_code_label (proposal), "*\n\n");
      assay_report_ipynb_append_fenced (markdown, proposal->proposed_code);
    }
  if (proposal->diff != NULL && report->options.include_code)
    assay_report_ipynb_append_fenced (markdown, proposal->diff);
  else if (proposal->diff != NULL)
    {
      g_autofree char *note = report_proposal_changed_note (proposal);

      assay_report_ipynb_append_literal (markdown, "*", note, "*\n\n");
    }
  while (markdown->len > 0 && markdown->str[markdown->len - 1] == '\n')
    g_string_truncate (markdown, markdown->len - 1);
  return g_string_free (markdown, FALSE);
}

/* The audit trail: its title and what it holds, then a cell for each proposal. */
static void
assay_report_ipynb_add_audit (JsonArray   *cells,
                              guint       *counter,
                              AssayReport *report)
{
  g_autoptr(GString) intro = g_string_new (NULL);

  assay_report_ipynb_append_literal (intro, "## ", report_audit_title (), "\n\n");
  assay_report_ipynb_append_literal (intro, "", report_audit_intro (), "");
  assay_report_ipynb_add_markdown (cells, counter, intro->str);
  for (guint i = 0; i < report->proposals->len; i++)
    {
      g_autofree char *markdown = assay_report_ipynb_proposal_markdown (report, g_ptr_array_index (report->proposals, i));

      assay_report_ipynb_add_markdown (cells, counter, markdown);
    }
}

/* Where a rejected cell was proposed: what was rejected and why, never as a code cell (it
 * must not run with the rest). */
static char *
assay_report_ipynb_rejected_markdown (AssayReport          *report,
                                      const ReportProposal *proposal)
{
  GString *markdown = g_string_new (NULL);
  g_autofree char *note = report_rejected_note (proposal);

  assay_report_ipynb_append_literal (markdown, "*", note, "*");
  if (report->options.include_code && proposal->proposed_code != NULL)
    {
      g_string_append (markdown, "\n\n");
      assay_report_ipynb_append_fenced (markdown, proposal->proposed_code);
      while (markdown->len > 0 && markdown->str[markdown->len - 1] == '\n')
        g_string_truncate (markdown, markdown->len - 1);
    }
  return g_string_free (markdown, FALSE);
}

/* The appendix: its title and what it holds, then a cell for each request. */
static void
assay_report_ipynb_add_requests (JsonArray   *cells,
                                 guint       *counter,
                                 AssayReport *report)
{
  g_autoptr(GString) intro = g_string_new (NULL);

  assay_report_ipynb_append_literal (intro, "## ", report_requests_title (), "\n\n");
  assay_report_ipynb_append_literal (intro, "", report_requests_intro (report), "");
  assay_report_ipynb_add_markdown (cells, counter, intro->str);
  for (guint i = 0; i < report->requests->len; i++)
    {
      g_autofree char *markdown = assay_report_ipynb_request_markdown (g_ptr_array_index (report->requests, i));

      assay_report_ipynb_add_markdown (cells, counter, markdown);
    }
}

gboolean
assay_report_write_ipynb (AssayReport   *report,
                          GOutputStream *out,
                          GCancellable  *cancellable,
                          GError       **error)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GHashTable) linked = assay_report_ipynb_linked_cells (report);
  g_autofree char *intro = assay_report_ipynb_intro_markdown (report);
  g_autofree char *text = NULL;
  JsonObject *notebook = json_object_new ();
  JsonObject *metadata = json_object_new ();
  JsonObject *kernelspec = json_object_new ();
  JsonObject *language = json_object_new ();
  JsonObject *assay = json_object_new ();
  JsonArray *cells = json_array_new ();
  guint n_markdown = 0;
  gsize length;

  json_node_take_object (root, notebook);
  json_object_set_string_member (kernelspec, "name", "python3");
  json_object_set_string_member (kernelspec, "display_name", "Python 3");
  json_object_set_string_member (kernelspec, "language", "python");
  json_object_set_string_member (language, "name", "python");
  json_object_set_string_member (language, "file_extension", ".py");
  json_object_set_string_member (language, "mimetype", "text/x-python");
  json_object_set_string_member (language, "pygments_lexer", "ipython3");
  json_object_set_string_member (assay, "session", report->session_dir);
  json_object_set_string_member (assay, "generator", "Assay " PACKAGE_VERSION);
  json_object_set_object_member (metadata, "kernelspec", kernelspec);
  json_object_set_object_member (metadata, "language_info", language);
  json_object_set_string_member (metadata, "title", report->title);
  json_object_set_object_member (metadata, "assay", assay);

  assay_report_ipynb_add_markdown (cells, &n_markdown, intro);
  if (report->datasets->len > 0)
    {
      g_autofree char *code = assay_report_ipynb_setup_code (report);
      JsonObject *cell = assay_report_ipynb_new_cell ("code", "data-setup", code);

      json_object_set_null_member (cell, "execution_count");
      json_object_set_array_member (cell, "outputs", json_array_new ());
      json_array_add_object_element (cells, cell);
    }
  if (report->rerun_of_title != NULL)
    {
      g_autofree char *changes = assay_report_ipynb_changes_markdown (report);

      assay_report_ipynb_add_markdown (cells, &n_markdown, changes);
    }

  for (guint i = 0; i < report->questions->len; i++)
    {
      ReportQuestion *question = g_ptr_array_index (report->questions, i);
      g_autofree char *heading = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          json_array_unref (cells);
          json_object_unref (metadata);
          return FALSE;
        }
      heading = g_strdup_printf ("## %s %u\n\n**%s** %s", _("Question"), question->number,
                                 _("Question:"), question->text);
      assay_report_ipynb_add_markdown (cells, &n_markdown, heading);
      for (guint j = 0; j < question->items->len; j++)
        {
          ReportItem *item = g_ptr_array_index (question->items, j);

          if (item->kind == REPORT_ITEM_TEXT)
            assay_report_ipynb_add_markdown (cells, &n_markdown, item->text);
          else if (item->kind == REPORT_ITEM_ANSWER)
            {
              g_autofree char *traced = assay_report_ipynb_traced_answer (item->text, item->provenance);
              g_autofree char *answer = g_strdup_printf ("### %s\n\n%s", _("Answer"), traced);

              assay_report_ipynb_add_markdown (cells, &n_markdown, answer);
            }
          else if (item->kind == REPORT_ITEM_REJECTED)
            {
              g_autofree char *rejected = assay_report_ipynb_rejected_markdown (report, item->proposal);

              assay_report_ipynb_add_markdown (cells, &n_markdown, rejected);
            }
          else if (item->kind == REPORT_ITEM_CELL)
            {
              const ReportCell *source = item->cell;
              g_autofree char *id = g_strdup_printf ("code-%u", source->execution_count);
              g_autofree char *loader = NULL;
              JsonObject *cell;

              if (source->kind == ASSAY_CELL_KIND_SQL)
                {
                  g_autofree char *query = assay_report_ipynb_query_markdown (source);

                  assay_report_ipynb_add_markdown (cells, &n_markdown, query);
                  loader = assay_report_ipynb_query_loader (source);
                }
              if (!report_cell_approved (source))
                {
                  /* Nobody approved it: in the notebook as comments, so Run All does not run it. */
                  g_autoptr(GString) commented = g_string_new (NULL);
                  g_auto(GStrv) lines = g_strsplit (loader ? loader : source->code, "\n", -1);
                  g_autoptr(GString) note = g_string_new (NULL);

                  assay_report_ipynb_append_literal (note, "*", report_cell_unapproved_note (source), "*");
                  assay_report_ipynb_add_markdown (cells, &n_markdown, note->str);
                  for (guint k = 0; lines[k] != NULL; k++)
                    {
                      g_autofree char *line = g_strdelimit (g_strdup (lines[k]), "\r\f\v", ' ');

                      g_string_append_printf (commented, "%s# %s", k > 0 ? "\n" : "", line);
                    }
                  cell = assay_report_ipynb_new_cell ("code", id, commented->str);
                }
              else
                cell = assay_report_ipynb_new_cell ("code", id, loader ? loader : source->code);
              JsonObject *cell_metadata = json_object_get_object_member (cell, "metadata");
              JsonObject *cell_assay = json_object_new ();

              /* The place an answer's number links to. */
              if (g_hash_table_contains (linked, source->id))
                {
                  g_autofree char *anchor = g_strdup_printf ("<a id=\"cell-%s\"></a>*%s*%s%s", source->id,
                                                             source->id, source->description ? ": " : "",
                                                             source->description ? source->description : "");

                  assay_report_ipynb_add_markdown (cells, &n_markdown, anchor);
                }
              if (report_cell_decision_note (source) != NULL)
                {
                  g_autoptr(GString) note = g_string_new (NULL);

                  assay_report_ipynb_append_literal (note, "*", report_cell_decision_note (source), "*");
                  assay_report_ipynb_add_markdown (cells, &n_markdown, note->str);
                }
              json_object_set_int_member (cell, "execution_count", source->execution_count);
              json_object_set_array_member (cell, "outputs", assay_report_ipynb_copy_outputs (source));
              json_object_set_string_member (cell_assay, "cell", source->id);
              json_object_set_string_member (cell_assay,
                                             "status",
                                             assay_cell_status_to_string (source->status));
              if (source->description)
                json_object_set_string_member (cell_assay, "description", source->description);
              json_object_set_string_member (cell_assay, "decision", assay_decision_to_string (source->decision));
              json_object_set_int_member (cell_assay, "elapsed_ms", source->elapsed_ms);
              if (source->checks != NULL)
                json_object_set_member (cell_assay, "checks", assay_cell_checks_to_json (source->checks));
              json_object_set_object_member (cell_metadata, "assay", cell_assay);
              if (!report->options.include_code)
                {
                  /* The code stays, so the notebook still runs; JupyterLab folds it away. */
                  JsonObject *jupyter = json_object_new ();

                  json_object_set_boolean_member (jupyter, "source_hidden", TRUE);
                  json_object_set_object_member (cell_metadata, "jupyter", jupyter);
                }
              json_array_add_object_element (cells, cell);
            }
        }
      assay_report_progress (report, (double) (i + 1) / (report->questions->len + 1),
                             _("Writing the notebook"));
    }

  if (report->proposals->len > 0)
    assay_report_ipynb_add_audit (cells, &n_markdown, report);
  if (report->requests != NULL)
    assay_report_ipynb_add_requests (cells, &n_markdown, report);

  json_object_set_object_member (notebook, "metadata", metadata);
  json_object_set_int_member (notebook, "nbformat", 4);
  json_object_set_int_member (notebook, "nbformat_minor", 5);
  json_object_set_array_member (notebook, "cells", cells);

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 1);
  text = json_generator_to_data (generator, &length);
  if (!g_output_stream_write_all (out, text, length, NULL, cancellable, error))
    return FALSE;
  return g_output_stream_write_all (out, "\n", 1, NULL, cancellable, error);
}
