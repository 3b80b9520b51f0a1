/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"
#include "assay-cell-output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gunixoutputstream.h>

#include "assay-data-text.h"
#include "assay-report-private.h"
#include "assay-session-outline.h"
#include "assay-session.h"
#include "assay-json.h"

G_DEFINE_QUARK (assay-report-error-quark, assay_report_error)

void
assay_report_options_init (AssayReportOptions *options)
{
  memset (options, 0, sizeof *options);
  options->format = assay_report_get_format (0);
  options->include_code = TRUE;
  options->only_successful = FALSE;
  options->include_requests = FALSE;
  options->include_data = FALSE;
}

/* Whether C may end a file name's stem: not a dot, an ellipsis, a space or a dash. */
static gboolean
assay_report_name_may_end_with (gunichar c)
{
  return c != '.' && c != 0x2026 && c != '-' && c != ',' && c != ';' && !g_unichar_isspace (c);
}

static void
assay_report_name_trim_end (GString *name)
{
  while (name->len > 0)
    {
      const char *last = g_utf8_find_prev_char (name->str, name->str + name->len);

      if (last == NULL)
        last = name->str;
      if (assay_report_name_may_end_with (g_utf8_get_char (last)))
        break;
      g_string_truncate (name, last - name->str);
    }
}

char *
assay_report_suggest_file_name (const char              *title,
                                const AssayReportFormat *format)
{
  g_autoptr(GString) name = g_string_new (NULL);
  gboolean space = FALSE;

  if (title != NULL && !g_utf8_validate (title, -1, NULL))
    title = NULL;
  for (const char *p = title != NULL ? title : ""; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == '/' || c == '\\' || c == ':' || c == '|')
        c = '-';
      else if (c == '?' || c == '*' || c == '"' || c == '<' || c == '>' || g_unichar_iscntrl (c) ||
               g_unichar_type (c) == G_UNICODE_FORMAT)
        continue;
      if (g_unichar_isspace (c))
        {
          space = name->len > 0;
          continue;
        }
      if (name->len == 0 && (c == '.' || c == '-'))
        continue;
      if (space)
        g_string_append_c (name, ' ');
      space = FALSE;
      g_string_append_unichar (name, c);
    }
  if (name->len > 120)
    {
      const char *end = g_utf8_find_prev_char (name->str, name->str + 121);

      g_string_truncate (name, end != NULL ? (gsize) (end - name->str) : 120);
    }
  assay_report_name_trim_end (name);
  if (name->len == 0)
    g_string_assign (name, _("Report"));
  g_string_append_printf (name, ".%s", assay_report_format_get_extension (format));
  return g_string_free (g_steal_pointer (&name), FALSE);
}

/* ---- the snapshot ------------------------------------------------------------------------ */

static void
assay_report_figure_free (ReportFigure *figure)
{
  g_free (figure->caption);
  g_free (figure->path);
  g_free (figure->base64);
  g_free (figure);
}

static void
assay_report_cell_free (ReportCell *cell)
{
  g_free (cell->id);
  g_free (cell->description);
  g_free (cell->code);
  g_free (cell->database);
  g_free (cell->frame);
  g_free (cell->query_result);
  g_free (cell->status_reason);
  json_array_unref (cell->outputs);
  assay_cell_checks_free (cell->checks);
  g_ptr_array_unref (cell->figures);
  g_ptr_array_unref (cell->files);
  g_free (cell);
}

static void
assay_report_item_free (ReportItem *item)
{
  g_free (item->text);
  g_clear_pointer (&item->provenance, assay_provenance_free);
  g_free (item);
}

static void
assay_report_question_free (ReportQuestion *question)
{
  g_free (question->text);
  g_ptr_array_unref (question->items);
  g_free (question);
}

static void
assay_report_source_free (ReportSource *source)
{
  g_free (source->name);
  g_free (source->kind);
  g_free (source->url);
  g_free (source);
}

static void
assay_report_dataset_free (ReportDataset *dataset)
{
  g_free (dataset->name);
  g_free (dataset->path);
  g_free (dataset->sha256);
  g_free (dataset);
}

void
assay_report_free (AssayReport *report)
{
  if (report == NULL)
    return;
  g_free (report->options.title);
  g_free (report->title);
  g_free (report->ran_in);
  g_free (report->session_dir);
  g_free (report->status);
  g_ptr_array_unref (report->datasets);
  g_ptr_array_unref (report->sources);
  g_ptr_array_unref (report->questions);
  g_ptr_array_unref (report->cells);
  g_clear_pointer (&report->proposals, g_ptr_array_unref);
  g_clear_pointer (&report->requests, g_ptr_array_unref);
  g_ptr_array_unref (report->changes);
  g_ptr_array_unref (report->rerun_notes);
  g_free (report->rerun_of_title);
  g_free (report);
}

void
assay_report_progress (AssayReport *report,
                       double       fraction,
                       const char  *message)
{
  if (report->progress)
    report->progress (CLAMP (fraction, 0.0, 1.0), message, report->progress_data);
}

/* Rows of a delimited text file: line ends outside double quotes, minus the header. */
static gint64
assay_report_count_rows (const char *path)
{
  AssayRowCounter counter;
  guint8 buffer[65536];
  ssize_t n;
  int fd;

  if (!assay_data_counts_rows (path))
    return -1;
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0)
    return -1;
  assay_row_counter_init (&counter);
  while ((n = read (fd, buffer, sizeof buffer)) > 0)
    assay_row_counter_feed (&counter, buffer, (gsize) n);
  close (fd);
  if (n < 0)
    return -1;
  return assay_row_counter_finish (&counter);
}

static ReportCell *
assay_report_snapshot_cell (AssayReport            *report,
                            AssaySession           *session,
                            const AssaySessionCell *source)
{
  ReportCell *cell = g_new0 (ReportCell, 1);
  guint n_outputs;

  cell->id = g_strdup (source->id);
  cell->description = g_strdup (source->description);
  cell->code = g_strdup (source->code);
  cell->status = source->status;
  cell->status_reason = g_strdup (source->status_reason);
  cell->succeeded = assay_session_cell_succeeded (source);
  cell->elapsed_ms = source->elapsed_ms;
  cell->checks = assay_cell_checks_copy (source->checks);
  cell->decision = source->decision;
  cell->kind = source->kind;
  cell->query_rows = -1;
  if (source->kind == ASSAY_CELL_KIND_SQL && source->query != NULL)
    {
      cell->database = g_strdup (source->query->database);
      cell->frame = g_strdup (source->query->frame);
      cell->query_rows = source->query->rows;
      /* NULL when the record names something outside the session folder. */
      if (source->query->result != NULL)
        cell->query_result = assay_session_resolve (session, source->query->result);
    }
  /* An array of its own for the worker, each run of one stream one output: a cell that
   * printed line by line is one block of text, in every format. */
  cell->outputs = assay_cell_output_join_streams (source->outputs);
  cell->figures = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_report_figure_free);
  cell->files = g_ptr_array_new_with_free_func (g_free);

  n_outputs = json_array_get_length (cell->outputs);
  for (guint i = 0; i < n_outputs; i++)
    {
      g_autoptr(AssayCellOutput) output = assay_cell_output_read (json_array_get_element (cell->outputs, i));

      if (output != NULL && output->png_base64 != NULL)
        {
          ReportFigure *figure = g_new0 (ReportFigure, 1);

          figure->number = ++report->n_figures;
          figure->base64 = g_strdup (output->png_base64);
          figure->caption = g_strdup_printf (_("Figure %u: output of cell %s"), figure->number,
                                             cell->id);
          g_ptr_array_add (cell->figures, figure);
        }
    }

  for (guint i = 0; source->artifacts && i < source->artifacts->len; i++)
    {
      const AssayArtifact *artifact = g_ptr_array_index (source->artifacts, i);

      if (artifact->path == NULL || artifact->name == NULL)
        continue;
      if (g_strcmp0 (artifact->mime, "image/png") == 0 && !artifact->truncated)
        {
          ReportFigure *figure = g_new0 (ReportFigure, 1);

          figure->number = ++report->n_figures;
          figure->path = assay_session_resolve (session, artifact->path);
          figure->caption = g_strdup_printf (_("Figure %u: %s"), figure->number, artifact->name);
          g_ptr_array_add (cell->figures, figure);
        }
      else
        g_ptr_array_add (cell->files, g_strdup (artifact->name));
    }
  return cell;
}

static gboolean
assay_report_cell_included (const AssayReportOptions *options,
                            const AssaySessionCell   *cell)
{
  /* Only cells that ran: a rejected or never-run proposal has no outputs to show. */
  if (cell->code == NULL || cell->started_at == 0)
    return FALSE;
  if (options->only_successful && !assay_session_cell_succeeded (cell))
    return FALSE;
  return TRUE;
}

static ReportQuestion *
assay_report_add_question (AssayReport *report,
                           const char  *text)
{
  ReportQuestion *question = g_new0 (ReportQuestion, 1);

  question->number = report->questions->len + 1;
  question->text = g_strdup (text ? text : "");
  question->items = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_report_item_free);
  g_ptr_array_add (report->questions, question);
  return question;
}

static ReportItem *
assay_report_add_item (ReportQuestion *question,
                       ReportItemKind  kind,
                       const char     *text,
                       ReportCell     *cell)
{
  ReportItem *item = g_new0 (ReportItem, 1);

  item->kind = kind;
  item->text = g_strdup (text);
  item->cell = cell;
  g_ptr_array_add (question->items, item);
  return item;
}

AssayReport *
assay_report_new_from_session (AssaySession             *session,
                               const AssayReportOptions *options)
{
  AssayReport *report = g_new0 (AssayReport, 1);
  g_autoptr(GHashTable) by_source = g_hash_table_new (NULL, NULL);
  g_autoptr(AssaySessionOutline) outline = NULL;
  g_autoptr(GHashTable) proposals = NULL;
  GPtrArray *datasets;
  guint n_cells = assay_session_get_n_cells (session);

  report->options = *options;
  report->options.title = g_strdup (options->title);
  if (options->title && *options->title)
    report->title = g_strdup (options->title);
  else if (assay_session_get_title (session) && *assay_session_get_title (session))
    report->title = g_strdup (assay_session_get_title (session));
  else
    report->title = g_strdup (_("Analysis"));
  report->session_dir = g_strdup (assay_session_get_dir (session));
  report->created = assay_session_get_created (session);
  report->status = g_strdup (assay_session_get_status (session));
  report->ran_in = g_strdup (assay_session_get_sandbox_where (session) != NULL
                             ? assay_session_get_sandbox_where (session)
                             : assay_session_get_sandbox (session));
  report->datasets = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_report_dataset_free);
  report->questions = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_report_question_free);
  report->cells = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_report_cell_free);
  report->changes = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_session_change_free);
  for (guint i = 0; i < assay_session_get_changes (session)->len; i++)
    g_ptr_array_add (report->changes, assay_session_change_copy (g_ptr_array_index (assay_session_get_changes (session), i)));
  report->rerun_notes = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < assay_session_get_rerun_notes (session)->len; i++)
    g_ptr_array_add (report->rerun_notes, g_strdup (g_ptr_array_index (assay_session_get_rerun_notes (session), i)));
  if (assay_session_get_rerun_of (session) != NULL)
    report->rerun_of_title = assay_session_get_rerun_of_title (session) != NULL
                             ? g_strdup (assay_session_get_rerun_of_title (session))
                             : g_path_get_basename (assay_session_get_rerun_of (session));

  report->sources = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_report_source_free);
  for (guint i = 0; i < assay_session_get_sources (session)->len; i++)
    {
      const AssaySessionSource *source = g_ptr_array_index (assay_session_get_sources (session), i);
      ReportSource *copy = g_new0 (ReportSource, 1);

      copy->name = g_strdup (source->name);
      copy->kind = g_strdup (source->kind);
      copy->url = g_strdup (source->url);
      g_ptr_array_add (report->sources, copy);
    }

  datasets = assay_session_get_datasets (session);
  for (guint i = 0; datasets && i < datasets->len; i++)
    {
      const AssaySessionDataset *source = g_ptr_array_index (datasets, i);
      ReportDataset *dataset = g_new0 (ReportDataset, 1);
      GStatBuf st;

      dataset->name = g_strdup (source->name);
      dataset->path = assay_session_resolve (session, source->path);
      /* NULL: the record names something outside the session folder; it is not read. */
      dataset->bytes = dataset->path != NULL && g_lstat (dataset->path, &st) == 0 &&
                       S_ISREG (st.st_mode) ? st.st_size : -1;
      dataset->sha256 = g_strdup (source->sha256);
      dataset->changed = source->changed;
      if (source->sha256 != NULL && !source->changed)
        dataset->rows = source->rows;
      else
        dataset->rows = dataset->bytes >= 0 ? assay_report_count_rows (dataset->path) : -1;
      g_ptr_array_add (report->datasets, dataset);
    }

  /* The cells that go in, in the order they ran, numbered as a notebook would. */
  for (guint i = 0; i < n_cells; i++)
    {
      AssaySessionCell *source = assay_session_get_cell (session, i);
      ReportCell *cell;

      if (!assay_report_cell_included (options, source))
        continue;
      cell = assay_report_snapshot_cell (report, session, source);
      cell->execution_count = report->cells->len + 1;
      g_ptr_array_add (report->cells, cell);
      g_hash_table_insert (by_source, source, cell);
    }

  /* Where they go: the session's one reading of questions, steps and cells. */
  outline = assay_session_outline_new (session);
  /* Every proposal, whether it ran or not: the audit trail. */
  proposals = report_audit_snapshot (report, outline, by_source);
  for (guint i = 0; i < outline->questions->len; i++)
    {
      const AssayOutlineQuestion *source = g_ptr_array_index (outline->questions, i);
      ReportQuestion *question = assay_report_add_question (report, source->text);

      for (guint j = 0; j < source->steps->len; j++)
        {
          const AssayOutlineStep *step = g_ptr_array_index (source->steps, j);
          g_autofree char *stripped = g_strstrip (g_strdup (step->text ? step->text : ""));

          /* A step Assay was closed in the middle of did not run to the end, and a draft answer
           * Assay sent back is no answer: left out (the record and the requests keep them). */
          if (step->interrupted || (step->checked && step->cells->len == 0))
            continue;
          if (*stripped && !step->is_answer)
            assay_report_add_item (question, REPORT_ITEM_TEXT, step->text, NULL);
          for (guint k = 0; k < step->cells->len; k++)
            {
              const AssaySessionCell *source_cell = g_ptr_array_index (step->cells, k);
              ReportCell *cell = g_hash_table_lookup (by_source, source_cell);

              if (cell != NULL)
                assay_report_add_item (question, REPORT_ITEM_CELL, NULL, cell);
              else if (source_cell->decision == ASSAY_DECISION_REJECTED && !options->only_successful)
                {
                  /* Where it was proposed, the body says it was rejected, and why. */
                  ReportItem *item = assay_report_add_item (question, REPORT_ITEM_REJECTED, NULL, NULL);

                  item->proposal = g_hash_table_lookup (proposals, source_cell);
                }
            }
          if (*stripped && step->is_answer)
            {
              ReportItem *item = assay_report_add_item (question, REPORT_ITEM_ANSWER, step->text, NULL);

              if (step->provenance != NULL)
                item->provenance = assay_provenance_copy (step->provenance);
            }
        }
    }

  if (options->include_requests)
    report->requests = report_requests_snapshot (session);
  return report;
}

/* ---- helpers shared by the writers -------------------------------------------------------- */

char *
report_cell_status_note (const ReportCell *cell)
{
  return g_strdup_printf (_("Cell %s ended with “%s”%s%s (see the appendix)."),
                          cell->id, assay_cell_status_to_string (cell->status),
                          cell->status_reason ? ": " : "",
                          cell->status_reason ? cell->status_reason : "");
}

AssayTable *
report_output_table (const AssayCellOutput *output)
{
  if (output->html == NULL)
    return NULL;
  return assay_html_table_extract (output->html, strlen (output->html));
}

char *
report_truncate_text (const char *text,
                      guint      *cut_lines)
{
  const char *p = text;
  guint lines = 0;

  *cut_lines = 0;
  while (*p && lines < REPORT_MAX_OUTPUT_LINES && (gsize) (p - text) < REPORT_MAX_OUTPUT_BYTES)
    {
      const char *nl = strchr (p, '\n');

      lines++;
      if (nl == NULL)
        {
          p += strlen (p);
          break;
        }
      p = nl + 1;
    }
  if (*p == '\0')
    {
      gsize len = strlen (text);

      /* The last line end is not a line of its own. */
      return g_strndup (text, len > 0 && text[len - 1] == '\n' ? len - 1 : len);
    }
  for (const char *q = p; *q; q++)
    if (*q == '\n' && q[1] != '\0')
      (*cut_lines)++;
  (*cut_lines)++;
  {
    gsize len = p - text;

    if (len > 0 && text[len - 1] == '\n')
      len--;
    return g_utf8_make_valid (text, len);
  }
}

GBytes *
report_figure_load (const ReportFigure *figure,
                    guint              *width,
                    guint              *height,
                    GError            **error)
{
  static const guint8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  g_autoptr(GBytes) bytes = NULL;
  const guint8 *data;
  gsize size;

  if (figure->base64)
    {
      gsize len = strlen (figure->base64);
      guchar *decoded;

      if (len / 4 * 3 > REPORT_MAX_IMAGE_BYTES)
        {
          g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER,
                       _("the image is too large"));
          return NULL;
        }
      decoded = g_base64_decode (figure->base64, &size);
      bytes = g_bytes_new_take (decoded, size);
    }
  else if (figure->path)
    {
      g_autofree char *contents = NULL;
      GStatBuf st;

      if (g_lstat (figure->path, &st) != 0 || !S_ISREG (st.st_mode))
        {
          g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER,
                       _("the file is missing"));
          return NULL;
        }
      if (st.st_size > REPORT_MAX_IMAGE_BYTES)
        {
          g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER,
                       _("the image is too large"));
          return NULL;
        }
      /* Read, not mapped: a file cut short while mapped would fault (SIGBUS). */
      if (!g_file_get_contents (figure->path, &contents, &size, error))
        return NULL;
      bytes = g_bytes_new_take (g_steal_pointer (&contents), size);
    }
  else
    {
      g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER, _("no image data"));
      return NULL;
    }

  data = g_bytes_get_data (bytes, &size);
  if (size < 24 || memcmp (data, signature, 8) != 0 || memcmp (data + 12, "IHDR", 4) != 0)
    {
      g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER,
                   _("the image is not a PNG file"));
      return NULL;
    }
  /* A cut file is the usual damage: a PNG ends with its IEND chunk. Deeper damage is
   * found by the decoder (the PDF) or left to the browser (HTML). */
  if (size < 57 || memcmp (data + size - 12, "\0\0\0\0IEND\xae\x42\x60\x82", 12) != 0)
    {
      g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER,
                   _("the PNG data is cut short or damaged"));
      return NULL;
    }
  {
    guint32 be[2];

    memcpy (be, data + 16, sizeof be);
    *width = GUINT32_FROM_BE (be[0]);
    *height = GUINT32_FROM_BE (be[1]);
  }
  if (*width == 0 || *height == 0 || *width > REPORT_MAX_IMAGE_SIDE || *height > REPORT_MAX_IMAGE_SIDE)
    {
      g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_RENDER,
                   _("the image is %u × %u pixels, more than Assay draws"), *width, *height);
      return NULL;
    }
  return g_steal_pointer (&bytes);
}

char *
report_format_date (gint64 usec)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC);

  return time ? g_date_time_format (time, "%Y-%m-%d %H:%M") : g_strdup ("");
}

char *
report_dataset_summary (const ReportDataset *dataset)
{
  g_autofree char *size = dataset->bytes >= 0 ? g_format_size (dataset->bytes) : NULL;
  g_autofree char *summary = NULL;
  GString *text;

  if (dataset->rows >= 0)
    summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s: %'lld row (%s)",
                                            "%s: %'lld rows (%s)", dataset->rows),
                               dataset->name, (long long) dataset->rows, size);
  else if (size)
    summary = g_strdup_printf ("%s (%s)", dataset->name, size);
  else
    summary = g_strdup_printf (_("%s (missing)"), dataset->name);
  text = g_string_new (summary);
  /* What it was when it was added, so that a reader can check the file they hold. */
  if (dataset->sha256 != NULL)
    {
      g_string_append (text, ", ");
      g_string_append_printf (text, _("SHA-256 %s"), dataset->sha256);
    }
  if (dataset->changed)
    {
      g_string_append (text, " — ");
      g_string_append (text, _("changed on disk since it was added to the session: the results may not match it"));
    }
  return g_string_free (text, FALSE);
}

/* ---- writing ------------------------------------------------------------------------------ */

static gboolean
assay_report_write_report (AssayReport   *report,
                           const char    *path,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmp_path = g_build_filename (dir, NULL);
  g_autoptr(GOutputStream) raw = NULL;
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GError) local_error = NULL;
  gboolean ok;
  int fd;

  g_free (tmp_path);
  tmp_path = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  fd = g_mkstemp_full (tmp_path, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                   _("Cannot write the report in %s: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  raw = g_unix_output_stream_new (fd, TRUE);
  out = g_buffered_output_stream_new_sized (raw, 256 * 1024);

  ok = report->options.format->write (report, out, cancellable, &local_error);
  if (ok)
    ok = g_output_stream_flush (out, cancellable, &local_error);
  if (ok && fsync (fd) != 0)
    {
      int saved = errno;

      g_set_error (&local_error, G_IO_ERROR, g_io_error_from_errno (saved), "%s",
                   g_strerror (saved));
      ok = FALSE;
    }
  if (!g_output_stream_close (out, NULL, ok ? &local_error : NULL))
    ok = FALSE;
  if (ok && g_rename (tmp_path, path) != 0)
    {
      int saved = errno;

      g_set_error (&local_error, G_IO_ERROR, g_io_error_from_errno (saved), "%s",
                   g_strerror (saved));
      ok = FALSE;
    }
  if (ok)
    return TRUE;

  g_unlink (tmp_path);
  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
      || local_error->domain == ASSAY_REPORT_ERROR)
    g_propagate_error (error, g_steal_pointer (&local_error));
  else if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NO_SPACE))
    g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                 _("The disk is full: the report could not be written to %s"), path);
  else
    g_set_error (error, ASSAY_REPORT_ERROR, ASSAY_REPORT_ERROR_WRITE,
                 _("The report could not be written to %s: %s"), path, local_error->message);
  return FALSE;
}

gboolean
assay_report_export (AssaySession              *session,
                     const AssayReportOptions  *options,
                     const char                *path,
                     AssayProgressFunc          progress,
                     gpointer                   progress_data,
                     GCancellable              *cancellable,
                     GError                   **error)
{
  AssayReport *report;
  gboolean ok;

  g_return_val_if_fail (ASSAY_IS_SESSION (session), FALSE);
  g_return_val_if_fail (options != NULL && options->format != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  report = assay_report_new_from_session (session, options);
  report->progress = progress;
  report->progress_data = progress_data;
  assay_report_progress (report, 0.0, _("Preparing the report"));
  ok = assay_report_write_report (report, path, cancellable, error);
  if (ok)
    assay_report_progress (report, 1.0, _("Done"));
  assay_report_free (report);
  return ok;
}

/* ---- async -------------------------------------------------------------------------------- */

typedef struct
{
  AssayReport       *report;
  char              *path;
  GMainContext      *context;
  AssayProgressFunc  progress;
  gpointer           progress_data;
  GDestroyNotify     progress_destroy;
} ExportData;

typedef struct
{
  ExportData *data;
  double      fraction;
  char       *message;
  GTask      *task;          /* keeps DATA alive until the report reached the caller */
} ProgressEvent;

static void
assay_report_export_data_free (ExportData *data)
{
  assay_report_free (data->report);
  g_free (data->path);
  g_main_context_unref (data->context);
  if (data->progress_destroy)
    data->progress_destroy (data->progress_data);
  g_free (data);
}

static gboolean
assay_report_deliver_progress (gpointer user_data)
{
  ProgressEvent *event = user_data;

  event->data->progress (event->fraction, event->message, event->data->progress_data);
  return G_SOURCE_REMOVE;
}

static void
assay_report_progress_event_free (gpointer user_data)
{
  ProgressEvent *event = user_data;

  g_free (event->message);
  g_object_unref (event->task);
  g_free (event);
}

static void
assay_report_forward_progress (double      fraction,
                               const char *message,
                               gpointer    user_data)
{
  GTask *task = user_data;
  ExportData *data = g_task_get_task_data (task);
  ProgressEvent *event = g_new0 (ProgressEvent, 1);

  event->data = data;
  event->fraction = fraction;
  event->message = g_strdup (message);
  event->task = g_object_ref (task);
  g_main_context_invoke_full (data->context, G_PRIORITY_DEFAULT, assay_report_deliver_progress, event,
                              assay_report_progress_event_free);
}

static void
assay_report_export_worker (GTask        *task,
                            gpointer      source_object,
                            gpointer      task_data,
                            GCancellable *cancellable)
{
  ExportData *data = task_data;
  GError *error = NULL;

  if (data->progress)
    {
      data->report->progress = assay_report_forward_progress;
      data->report->progress_data = task;
    }
  assay_report_progress (data->report, 0.0, _("Preparing the report"));
  if (!assay_report_write_report (data->report, data->path, cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  assay_report_progress (data->report, 1.0, _("Done"));
  g_task_return_boolean (task, TRUE);
}

void
assay_report_export_async (AssaySession              *session,
                           const AssayReportOptions  *options,
                           const char                *path,
                           AssayProgressFunc          progress,
                           gpointer                   progress_data,
                           GDestroyNotify             progress_destroy,
                           GCancellable              *cancellable,
                           GAsyncReadyCallback        callback,
                           gpointer                   user_data)
{
  g_autoptr(GTask) task = NULL;
  ExportData *data;

  g_return_if_fail (ASSAY_IS_SESSION (session));
  g_return_if_fail (options != NULL);
  g_return_if_fail (path != NULL);

  task = g_task_new (session, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_report_export_async);
  data = g_new0 (ExportData, 1);
  /* The snapshot is taken here, on the caller's thread; the worker never sees SESSION. */
  data->report = assay_report_new_from_session (session, options);
  data->path = g_strdup (path);
  data->context = g_main_context_ref_thread_default ();
  data->progress = progress;
  data->progress_data = progress_data;
  data->progress_destroy = progress_destroy;
  g_task_set_task_data (task, data, (GDestroyNotify) assay_report_export_data_free);
  g_task_run_in_thread (task, assay_report_export_worker);
}

gboolean
assay_report_export_finish (AssaySession  *session,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, session), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

const ReportCell *
report_find_cell (const AssayReport *report,
                  const char        *id)
{
  for (guint i = 0; id != NULL && i < report->cells->len; i++)
    {
      const ReportCell *cell = g_ptr_array_index (report->cells, i);

      if (g_strcmp0 (cell->id, id) == 0)
        return cell;
    }
  return NULL;
}

char *
report_untraced_note (const AssayTracedNumber *traced)
{
  if (traced->stale)
    return g_strdup_printf (_("%s: stale, not found again in the output on the new data (its line is gone, on "
                              "several lines, or its table changed); the old text is kept."), traced->text);
  if (traced->weak)
    return g_strdup_printf (_("%s: not traced: it matches only among %u numbers cell %s printed near it, which "
                              "proves nothing."), traced->text, traced->crowd, traced->cell_id);
  return g_strdup_printf (_("%s: not found in any output of this question's cells."), traced->text);
}

char *
report_traced_title (const AssayTracedNumber *traced)
{
  if (traced->stale)
    return g_strdup (_("Stale: not found again in the output on the new data; the old text is kept"));
  if (traced->weak)
    return g_strdup_printf (_("Not traced: cell %s printed %u numbers near it (line %u: %s); a match among so "
                              "many proves nothing"), traced->cell_id, traced->crowd, traced->line, traced->line_text);
  if (!traced->found)
    return g_strdup (_("Not found in any output of this question's cells"));
  if (traced->ambiguous)
    return g_strdup_printf (_("Printed under %u labels, and the answer does not say which; one is cell %s, "
                              "line %u: %s"), traced->places, traced->cell_id, traced->line, traced->line_text);
  /* Translators: where a number of the answer was printed: the cell, the line, its text. */
  return g_strdup_printf (_("Cell %s, line %u: %s"), traced->cell_id, traced->line, traced->line_text);
}

guint *
report_footnotes (const AssayProvenance *provenance,
                  guint                 *n_untraced)
{
  guint *footnotes = g_new0 (guint, MAX (provenance->numbers->len, 1));

  *n_untraced = 0;
  for (guint i = 0; i < provenance->numbers->len; i++)
    if (!((AssayTracedNumber *) g_ptr_array_index (provenance->numbers, i))->found)
      footnotes[i] = ++*n_untraced;
  return footnotes;
}
