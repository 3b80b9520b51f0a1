/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The appendix "What was sent to the model": the bodies the session kept of its requests, as
 * assay-session-requests reads them (either API's shape, parts labelled, each marked added,
 * repeated or changed against the request before), each reduced to what it added and cut to
 * what a page can hold. Reading and comparing are that file's; this one only presents. */
#define G_LOG_DOMAIN "Assay-Report"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "assay-prices.h"
#include "assay-report-private.h"
#include "assay-session.h"
#include "assay-session-requests.h"

static void
assay_report_requests_entry_free (gpointer data)
{
  ReportRequestEntry *entry = data;

  if (entry == NULL)
    return;
  g_free (entry->label);
  g_free (entry->head);
  g_free (entry->cut_note);
  g_free (entry->tail);
  g_free (entry);
}

static void
assay_report_requests_request_free (gpointer data)
{
  ReportRequest *request = data;

  g_free (request->heading);
  g_free (request->meta);
  g_free (request->tokens);
  g_free (request->problem);
  g_free (request->system_note);
  g_free (request->added_note);
  g_ptr_array_unref (request->entries);
  g_free (request);
}

/* Where the head of TEXT ends: after at most MAX_CHARS characters, before its MAX_LINES-th
 * line end. */
static const char *
assay_report_requests_head_end (const char *text,
                                guint       max_chars,
                                guint       max_lines)
{
  const char *p = text;
  guint chars = 0, lines = 0;

  while (*p != '\0' && chars < max_chars)
    {
      if (*p == '\n' && ++lines >= max_lines)
        break;
      p = g_utf8_next_char (p);
      chars++;
    }
  return p;
}

/* Where the tail of TEXT (ending at END) starts, the same from the end. */
static const char *
assay_report_requests_tail_start (const char *text,
                                  const char *end,
                                  guint       max_chars,
                                  guint       max_lines)
{
  const char *p = end;
  guint chars = 0, lines = 0;

  while (p > text && chars < max_chars)
    {
      const char *previous = g_utf8_prev_char (p);

      if (*previous == '\n' && ++lines >= max_lines)
        break;
      p = previous;
      chars++;
    }
  return p;
}

/* A label names a role or a tool the body chose: a line, not a message. LABEL cut to
 * REPORT_REQUEST_MAX_LABEL characters (NULL stays NULL). */
static char *
assay_report_requests_cap_label (const char *label)
{
  g_autofree char *head = NULL;

  if (label == NULL || g_utf8_strlen (label, -1) <= REPORT_REQUEST_MAX_LABEL)
    return g_strdup (label);
  head = g_utf8_substring (label, 0, REPORT_REQUEST_MAX_LABEL - 1);
  return g_strconcat (head, "…", NULL);
}

/* TEXT under LABEL, cut in the middle when long: its head and tail stay, since the head
 * says what a message is and the tail where it ended (a traceback's last line). */
static ReportRequestEntry *
assay_report_requests_entry_new (const char *label,
                                 const char *text)
{
  ReportRequestEntry *entry = g_new0 (ReportRequestEntry, 1);
  gsize length = strlen (text);
  glong n_chars = g_utf8_strlen (text, length);
  guint n_lines = 1;
  const char *head_end, *tail_start;
  gulong cut;

  for (const char *p = text; (p = strchr (p, '\n')) != NULL; p++)
    n_lines++;
  entry->label = assay_report_requests_cap_label (label);
  if (n_chars <= REPORT_REQUEST_MAX_CHARS && n_lines <= REPORT_REQUEST_MAX_LINES)
    {
      entry->head = g_strdup (text);
      return entry;
    }
  head_end = assay_report_requests_head_end (text, REPORT_REQUEST_MAX_CHARS / 2, REPORT_REQUEST_MAX_LINES / 2);
  tail_start = assay_report_requests_tail_start (text, text + length, REPORT_REQUEST_MAX_CHARS / 2,
                                                 REPORT_REQUEST_MAX_LINES / 2);
  if (tail_start < head_end)
    tail_start = head_end;
  cut = (gulong) g_utf8_strlen (head_end, tail_start - head_end);
  entry->head = g_strndup (text, head_end - text);
  entry->tail = g_strdup (tail_start);
  entry->cut_note = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "[… %'lu character left out …]",
                                                  "[… %'lu characters left out …]", cut), cut);
  return entry;
}

static char *
assay_report_requests_meta (const AssaySessionRequest *source)
{
  g_autoptr(GPtrArray) pieces = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *host = assay_request_clean_text (source->host != NULL ? source->host : "?", TRUE);
  g_autofree char *sent = g_format_size (source->bytes_out);

  if (source->step > 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("step %u"), source->step));
  g_ptr_array_add (pieces, g_steal_pointer (&host));
  if (source->model != NULL && *source->model != '\0')
    {
      g_autofree char *model = assay_request_clean_text (source->model, TRUE);

      g_ptr_array_add (pieces, g_strdup_printf (_("model %s"), model));
    }
  if (source->sent_at > 0)
    {
      g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (source->sent_at / G_USEC_PER_SEC);

      if (time != NULL)
        g_ptr_array_add (pieces, g_date_time_format (time, "%Y-%m-%d %H:%M:%S"));
    }
  /* Translators: the size of a request's body, "12.3 kB sent". */
  g_ptr_array_add (pieces, g_strdup_printf (_("%s sent"), sent));
  if (source->bytes_in >= 0)
    {
      g_autofree char *received = g_format_size (source->bytes_in);

      /* Translators: the size of the server's answer, "4.5 kB received". */
      g_ptr_array_add (pieces, g_strdup_printf (_("%s received"), received));
    }
  g_ptr_array_add (pieces, NULL);
  return g_strjoinv (" · ", (char **) pieces->pdata);
}

/* The counts the server reported; the ones it did not (-1) are left out. */
static char *
assay_report_requests_tokens (const AssaySessionRequest *source)
{
  g_autoptr(GPtrArray) pieces = g_ptr_array_new_with_free_func (g_free);

  if (source->input_tokens >= 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("input tokens: %'lld"), (long long) source->input_tokens));
  if (source->cached_input_tokens >= 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("cached input tokens: %'lld"),
                                              (long long) source->cached_input_tokens));
  if (source->output_tokens >= 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("output tokens: %'lld"), (long long) source->output_tokens));
  if (source->reasoning_tokens >= 0)
    g_ptr_array_add (pieces, g_strdup_printf (_("reasoning tokens: %'lld"), (long long) source->reasoning_tokens));
  if (source->cost >= 0)
    {
      g_autofree char *cost = assay_price_format_cost (source->cost);

      g_ptr_array_add (pieces, g_strdup_printf (_("cost: %s"), cost));
    }
  if (source->mode != NULL)
    {
      AssayPrivacyMode mode;

      if (assay_privacy_mode_from_string (source->mode, &mode))
        g_ptr_array_add (pieces, g_strdup_printf (_("the model saw: %s"), assay_privacy_mode_get_label (mode)));
    }
  if (pieces->len == 0)
    return NULL;
  g_ptr_array_add (pieces, NULL);
  return g_strjoinv (" · ", (char **) pieces->pdata);
}

/* The system prompt, the dataset summary and the tools: what every request sends first. */
static gboolean
assay_report_requests_is_preamble (const AssayRequestPart *part)
{
  return part->kind == ASSAY_REQUEST_PART_SYSTEM || part->kind == ASSAY_REQUEST_PART_DATASETS ||
         part->kind == ASSAY_REQUEST_PART_TOOLS;
}

/* The requests reduced so far, and of each kind of preamble the request that last showed it. */
typedef struct
{
  GPtrArray *requests;                               /* ReportRequest*, the snapshot's */
  guint      shown_in[ASSAY_REQUEST_PART_OTHER + 1];  /* by AssayRequestPartKind; 0: none yet */
  gsize      shown_bytes;                            /* of all the text shown so far */
} ReportRequestsWalk;

/* What READING added to the request it was compared with, into REQUEST. The preamble that
 * was repeated is a note that names the request that last showed it; every other part that
 * is not repeated is an entry, in the order it was sent. */
static void
assay_report_requests_reduce (ReportRequestsWalk        *walk,
                              ReportRequest             *request,
                              const AssayRequestReading *reading)
{
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();                      /* AssayRequestPart*, borrowed */
  g_autoptr(GPtrArray) same = g_ptr_array_new_with_free_func (g_free);  /* char*: the preamble repeated */
  guint compared_with = reading->compared_with;
  guint half = REPORT_REQUEST_MAX_ENTRIES / 2;

  for (guint i = 0; i < reading->parts->len; i++)
    {
      const AssayRequestPart *part = g_ptr_array_index (reading->parts, i);
      gboolean preamble = assay_report_requests_is_preamble (part);

      if (part->change == ASSAY_REQUEST_PART_REPEATED)
        {
          if (preamble && same->len < REPORT_REQUEST_MAX_ENTRIES)
            {
              guint shown_in = walk->shown_in[part->kind] > 0 ? walk->shown_in[part->kind] : compared_with;
              g_autofree char *label = assay_report_requests_cap_label (part->label);

              /* Translators: "System prompt: same as request 1."; %s is the part's label. */
              g_ptr_array_add (same, g_strdup_printf (_("%s: same as request %u."), label, shown_in));
            }
          continue;
        }
      if (preamble)
        walk->shown_in[part->kind] = request->number;
      g_ptr_array_add (shown, (gpointer) part);
    }

  if (same->len > 0)
    {
      g_ptr_array_add (same, NULL);
      request->system_note = g_strjoinv (" ", (char **) same->pdata);
    }
  if (compared_with == 0)
    request->added_note = g_strdup (_("What it sent:"));
  else if (reading->diverged && shown->len > 0)
    request->added_note = g_strdup_printf (_("Different from request %u from here on:"), compared_with);
  else if (shown->len == 0)
    request->added_note = g_strdup_printf (_("Nothing added since request %u."), compared_with);
  else
    request->added_note = g_strdup_printf (_("Added since request %u:"), compared_with);

  for (guint i = 0; i < shown->len; i++)
    {
      const AssayRequestPart *part = g_ptr_array_index (shown, i);

      /* A conversation sent whole for the first time (a resumed session) can be long: its
       * first and last messages are what place it. */
      if (shown->len > REPORT_REQUEST_MAX_ENTRIES && i >= half && i < shown->len - half)
        {
          if (i == half)
            {
              ReportRequestEntry *note = g_new0 (ReportRequestEntry, 1);
              guint n = shown->len - 2 * half;

              note->head = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "… %u more message not shown …",
                                                         "… %u more messages not shown …", n), n);
              g_ptr_array_add (request->entries, note);
            }
          continue;
        }
      if (part->change == ASSAY_REQUEST_PART_CHANGED)
        {
          /* Translators: a part's label ("Tool result (cell c1)"), then the request it was
           * compared with. */
          g_autofree char *label = g_strdup_printf (_("%s — changed since request %u"), part->label, compared_with);

          g_ptr_array_add (request->entries, assay_report_requests_entry_new (label, part->text));
        }
      else
        g_ptr_array_add (request->entries, assay_report_requests_entry_new (part->label, part->text));
    }
}

/* The body's own words for why it cannot be shown, as a sentence. */
static char *
assay_report_requests_sentence (const char *message)
{
  g_autofree char *clean = assay_request_clean_text (message, TRUE);
  gsize length = strlen (clean);

  return length > 0 && clean[length - 1] == '.' ? g_steal_pointer (&clean) : g_strconcat (clean, ".", NULL);
}

static void
assay_report_requests_add (AssaySession              *session,
                           guint                      index,
                           const AssayRequestReading *reading,
                           const GError              *error,
                           gpointer                   user_data)
{
  ReportRequestsWalk *walk = user_data;
  const AssaySessionRequest *source = g_ptr_array_index (assay_session_get_requests (session), index);
  ReportRequest *request = g_new0 (ReportRequest, 1);

  request->number = source->number;
  request->heading = g_strdup_printf (_("Request %u"), source->number);
  request->meta = assay_report_requests_meta (source);
  request->tokens = assay_report_requests_tokens (source);
  request->entries = g_ptr_array_new_with_free_func (assay_report_requests_entry_free);
  g_ptr_array_add (walk->requests, request);

  if (source->file == NULL)
    {
      g_autofree char *cap = g_format_size_full (ASSAY_SESSION_REQUESTS_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);

      request->problem = g_strdup_printf (_("Its body was not kept: the session keeps %s of them, and that "
                                            "was reached. Only the figures above were recorded."), cap);
      return;
    }
  if (reading == NULL)
    {
      /* Not read back as it was sent, or not a request: the reader's words say which. */
      request->problem = assay_report_requests_sentence (error != NULL ? error->message : "?");
      return;
    }
  if (walk->shown_bytes >= REPORT_REQUESTS_MAX_BYTES)
    {
      g_autofree char *cap = g_format_size_full (REPORT_REQUESTS_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);

      request->problem = g_strdup_printf (_("Not shown: a report shows at most %s of what was sent, and the "
                                            "requests before this one reached it. assay-cli session request "
                                            "prints its body."), cap);
      return;
    }
  assay_report_requests_reduce (walk, request, reading);
  walk->shown_bytes += request->system_note != NULL ? strlen (request->system_note) : 0;
  for (guint i = 0; i < request->entries->len; i++)
    {
      const ReportRequestEntry *entry = g_ptr_array_index (request->entries, i);

      walk->shown_bytes += (entry->label != NULL ? strlen (entry->label) : 0) +
                           (entry->head != NULL ? strlen (entry->head) : 0) +
                           (entry->tail != NULL ? strlen (entry->tail) : 0);
    }
}

GPtrArray *
report_requests_snapshot (AssaySession *session)
{
  ReportRequestsWalk walk = { 0 };

  walk.requests = g_ptr_array_new_with_free_func (assay_report_requests_request_free);
  /* Read here, with the rest of the snapshot, because a session belongs to one thread and
   * only it reads its bodies back (checked against their SHA-256); each is read once, and
   * let go once it is reduced. */
  assay_session_requests_foreach (session, assay_report_requests_add, &walk);
  return walk.requests;
}

const char *
report_requests_title (void)
{
  return _("What was sent to the model");
}

const char *
report_requests_intro (const AssayReport *report)
{
  if (report->requests == NULL || report->requests->len == 0)
    return _("No request to a model server is recorded in this session: its answers were replayed "
             "from a recording, or it was made by an Assay that did not keep its requests yet.");
  return _("Every request Assay sent to a model server for this session, in order, as the session "
           "kept it. A request sends the whole conversation again, so each shows only what it added "
           "to the one before; long messages are cut in the middle. Keys go in headers, which are "
           "never kept.");
}
