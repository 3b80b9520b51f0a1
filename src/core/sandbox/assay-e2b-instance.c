/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-E2B"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assay-e2b-instance.h"
#include "assay-json.h"

#define MAX_HOST_LINE (64 * 1024 * 1024)
#define MAX_EVENT_LINE (8 * 1024 * 1024)
#define STREAM_CHUNK (64 * 1024)
#define ARTIFACT_CHUNK (768 * 1024)
#define MAX_RESULT_DATA (3 * 1024 * 1024)
#define WORKSPACE "/workspace"
#define WORKSPACE_DEPTH 64
/* The setup cell imports pandas and matplotlib: seconds, never minutes. */
#define SETUP_TIMEOUT_S 120
#define REFRESH_INTERVAL_US (60 * G_USEC_PER_SEC)

/* Run once in the interpreter's kernel before the first cell: the paths the model is told
 * (/workspace as the working directory, /data for the datasets). A template whose user
 * cannot make /workspace gets it through sudo, as E2B's user has it. */
static const char setup_code[] =
  "import os as _assay_os, sys as _assay_sys\n"
  "try:\n"
  "    _assay_os.makedirs('/workspace', exist_ok=True)\n"
  "except PermissionError:\n"
  "    import subprocess as _assay_subprocess\n"
  "    _assay_subprocess.run(['sudo', '-n', 'install', '-d', '-o', str(_assay_os.getuid()),\n"
  "                           '-g', str(_assay_os.getgid()), '/workspace'], check=False)\n"
  "_assay_os.chdir('/workspace')\n"
  "_assay_sys.path.insert(0, '/workspace')\n"
  "import pandas, matplotlib.pyplot\n"
  "print(_assay_sys.version.split()[0])\n"
  "del _assay_os, _assay_sys\n";

struct _AssayE2bInstance
{
  AssaySandboxInstance  parent_instance;

  AssayE2bClient       *client;
  AssayE2bSandbox      *sandbox;
  char                 *data_dir;
  AssaySandboxLimits    limits;
  guint                 lifetime_s;

  GOutputStream        *host_stdin;
  GInputStream         *host_stdout;
  int                   bridge_in;
  int                   bridge_out;
  int                   wake[2];

  GThread              *reader;
  GThread              *executor;
  GThread              *killer;
  GAsyncQueue          *cells;      /* lines of execute messages; "" ends */
  int                   pending;    /* cells read and not done */
  int                   interrupt;  /* an interrupt for the cell queued or running */
  int                   stop;       /* the transfer under way must end: interrupt or kill */
  int                   killed;

  GMutex                mutex;
  GCond                 cond;
  gboolean              ended;
  AssaySandboxExit      exit;
  char                 *last_error;
  gboolean              deleted;
  GHashTable           *seen;       /* workspace name → "size modifiedTime" */
  gint64                count_offset;  /* the kernel's executions before the first cell */
  gint64                extended_at;   /* when the sandbox's timeout was last set (monotonic) */
};

G_DEFINE_FINAL_TYPE (AssayE2bInstance, assay_e2b_instance, ASSAY_TYPE_SANDBOX_INSTANCE)

/* What goes to the session is one JSON object a line, written under the mutex so that a
 * kill, which closes the pipe, never races a write. */
static void
assay_e2b_instance_send (AssayE2bInstance *self,
                         JsonBuilder      *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *line = NULL;
  gsize len;
  gsize written = 0;

  json_generator_set_root (generator, root);
  line = json_generator_to_data (generator, &len);
  line = g_realloc (line, len + 2);
  line[len++] = '\n';
  line[len] = '\0';

  g_mutex_lock (&self->mutex);
  while (self->bridge_out >= 0 && written < len)
    {
      gssize n = write (self->bridge_out, line + written, len - written);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        {
          /* The session is not reading: wait for room, or for a kill, which must not wait
           * behind this write for the mutex. */
          struct pollfd fds[2] = { { self->bridge_out, POLLOUT, 0 }, { self->wake[0], POLLIN, 0 } };

          if ((poll (fds, 2, -1) < 0 && errno != EINTR) || fds[1].revents != 0)
            break;
          continue;
        }
      if (n <= 0)
        break;
      written += n;
    }
  g_mutex_unlock (&self->mutex);
}

static JsonBuilder *
assay_e2b_message_begin (const char *type,
                         const char *id)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, type);
  if (id != NULL)
    {
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, id);
    }
  return builder;
}

static void
assay_e2b_instance_send_stream (AssayE2bInstance *self,
                                const char       *id,
                                const char       *name,
                                const char       *text,
                                gsize             len)
{
  while (len > 0)
    {
      g_autoptr(JsonBuilder) builder = assay_e2b_message_begin ("output", id);
      gsize piece = MIN (len, STREAM_CHUNK);
      g_autofree char *chunk = NULL;

      /* Never split a UTF-8 character between two outputs. */
      while (piece < len && piece > 0 && ((guchar) text[piece] & 0xC0) == 0x80)
        piece--;
      if (piece == 0)
        piece = MIN (len, STREAM_CHUNK);
      chunk = g_utf8_make_valid (text, piece);
      json_builder_set_member_name (builder, "output");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "output_type");
      json_builder_add_string_value (builder, "stream");
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, name);
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, chunk);
      json_builder_end_object (builder);
      json_builder_end_object (builder);
      assay_e2b_instance_send (self, builder);
      text += piece;
      len -= piece;
    }
}

static void
assay_e2b_instance_send_done (AssayE2bInstance *self,
                              const char       *id,
                              const char       *status,
                              const char       *reason,
                              gint64            execution_count,
                              gint64            code_us)
{
  g_autoptr(JsonBuilder) builder = assay_e2b_message_begin ("done", id);

  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, status);
  if (reason != NULL)
    {
      json_builder_set_member_name (builder, "reason");
      json_builder_add_string_value (builder, reason);
    }
  json_builder_set_member_name (builder, "execution_count");
  json_builder_add_int_value (builder, execution_count);
  json_builder_set_member_name (builder, "code_us");
  json_builder_add_int_value (builder, code_us);
  json_builder_end_object (builder);
  assay_e2b_instance_send (self, builder);
}

static void
assay_e2b_instance_end (AssayE2bInstance *self,
                        int               exit_code,
                        int               signal_number,
                        const char       *reason)
{
  g_mutex_lock (&self->mutex);
  if (!self->ended)
    {
      self->ended = TRUE;
      self->exit.exited = TRUE;
      self->exit.exit_code = exit_code;
      self->exit.signal = signal_number;
      if (reason != NULL && self->last_error == NULL)
        self->last_error = g_strdup (reason);
      if (self->bridge_out >= 0)
        {
          close (self->bridge_out);
          self->bridge_out = -1;
        }
      g_cond_broadcast (&self->cond);
    }
  g_mutex_unlock (&self->mutex);
}

static void
assay_e2b_instance_fatal (AssayE2bInstance *self,
                          const char       *reason)
{
  g_autoptr(JsonBuilder) builder = assay_e2b_message_begin ("fatal", NULL);

  json_builder_set_member_name (builder, "reason");
  json_builder_add_string_value (builder, reason);
  json_builder_end_object (builder);
  assay_e2b_instance_send (self, builder);
  assay_e2b_instance_end (self, 3, 0, reason);
}

/* A sandbox request failed: the sandbox may be gone (E2B ends it at its timeout, and its
 * proxy then answers 502, the API 404). Returns the plain reason when it is, else NULL. */
static char *
assay_e2b_instance_check_gone (AssayE2bInstance *self)
{
  g_autoptr(GError) error = NULL;

  if (assay_e2b_client_sandbox_exists (self->client, self->sandbox->id, &error))
    return NULL;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return g_strdup_printf (_("the E2B sandbox %s is gone (it expired or was ended on E2B's side); "
                              "what the earlier cells made is lost"), self->sandbox->id);
  return NULL;
}

/* --- the datasets ------------------------------------------------------------------- */

static gboolean
assay_e2b_instance_upload_file (AssayE2bInstance  *self,
                                const char        *name,
                                GError           **error)
{
  g_autofree char *path = g_build_filename (self->data_dir, name, NULL);
  g_autofree char *target = g_strconcat ("/data/", name, NULL);
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GStatBuf info;

  /* Only regular files: a link in the data folder never brings a host file along. */
  if (g_lstat (path, &info) != 0 || !S_ISREG (info.st_mode))
    return TRUE;
  if (info.st_size == 0)
    bytes = g_bytes_new_static ("", 0);
  else
    {
      if (!(mapped = g_mapped_file_new (path, FALSE, error)))
        return FALSE;
      bytes = g_mapped_file_get_bytes (mapped);
    }
  return assay_e2b_client_upload (self->client, self->sandbox, target, bytes, error);
}

static gboolean
assay_e2b_instance_upload_data (AssayE2bInstance  *self,
                                GError           **error)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (self->data_dir == NULL)
    return TRUE;
  if (!(dir = g_dir_open (self->data_dir, 0, error)))
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (!assay_e2b_instance_upload_file (self, name, error))
      return FALSE;
  return TRUE;
}

/* --- the workspace ------------------------------------------------------------------ */

typedef struct
{
  char   *name;    /* under /workspace */
  char   *stamp;
} Changed;

static void
assay_e2b_changed_free (Changed *changed)
{
  g_free (changed->name);
  g_free (changed->stamp);
  g_free (changed);
}

static int
assay_e2b_changed_compare (gconstpointer a,
                           gconstpointer b)
{
  return strcmp ((*(Changed **) a)->name, (*(Changed **) b)->name);
}

/* The files under /workspace that are new or changed since the last look, by size and
 * modification time as envd lists them. Links are reported, never fetched. */
static GPtrArray *
assay_e2b_instance_scan (AssayE2bInstance  *self,
                         GPtrArray         *skipped,
                         GError           **error)
{
  g_autoptr(JsonArray) entries = assay_e2b_client_list_dir (self->client, self->sandbox, WORKSPACE,
                                                            WORKSPACE_DEPTH, error);
  GPtrArray *changed;
  guint n;

  if (entries == NULL)
    return NULL;
  changed = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_e2b_changed_free);
  n = json_array_get_length (entries);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (entries, i);
      JsonObject *entry = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *path = assay_json_get_string (entry, "path");
      const char *type = assay_json_get_string (entry, "type");
      const char *modified = assay_json_get_string (entry, "modifiedTime");
      const char *size_text = assay_json_get_string (entry, "size");
      g_autofree char *stamp = NULL;
      const char *name;
      gint64 size = 0;
      Changed *item;

      if (path == NULL || type == NULL || !g_str_has_prefix (path, WORKSPACE "/") ||
          !g_utf8_validate (path, -1, NULL))
        continue;
      name = path + strlen (WORKSPACE "/");
      if (name[0] == '\0' || strstr (name, "..") != NULL || g_str_equal (type, "FILE_TYPE_DIRECTORY"))
        continue;
      if (!g_str_equal (type, "FILE_TYPE_FILE"))
        {
          g_ptr_array_add (skipped, g_strdup (name));
          continue;
        }
      /* int64 is a string in protobuf's JSON; accept a number too. */
      if (size_text == NULL || !g_ascii_string_to_signed (size_text, 10, 0, G_MAXINT64, &size, NULL))
        size = assay_json_get_int_or (entry, "size", 0);
      stamp = g_strdup_printf ("%" G_GINT64_FORMAT " %s", size, modified != NULL ? modified : "");
      if (g_strcmp0 (g_hash_table_lookup (self->seen, name), stamp) == 0)
        continue;
      item = g_new0 (Changed, 1);
      item->name = g_strdup (name);
      item->stamp = g_steal_pointer (&stamp);
      g_ptr_array_add (changed, item);
    }
  g_ptr_array_sort (changed, assay_e2b_changed_compare);
  return changed;
}

static void
assay_e2b_instance_remember (AssayE2bInstance *self,
                             GPtrArray        *changed)
{
  for (guint i = 0; i < changed->len; i++)
    {
      Changed *item = g_ptr_array_index (changed, i);

      g_hash_table_replace (self->seen, g_strdup (item->name), g_strdup (item->stamp));
    }
}

/* Returns FALSE when a cap was hit (the status is then limit). */
static gboolean
assay_e2b_instance_send_artifacts (AssayE2bInstance  *self,
                                   const char        *id,
                                   guint64            artifact_bytes,
                                   guint64            max_artifacts,
                                   char             **reason)
{
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) changed = NULL;
  g_autoptr(GError) error = NULL;
  gboolean within = TRUE;
  gint64 seq = 0;

  if (!(changed = assay_e2b_instance_scan (self, skipped, &error)))
    {
      g_autofree char *text = g_strdup_printf (_("[the files in /workspace could not be fetched: %s]\n"),
                                               error->message);

      assay_e2b_instance_send_stream (self, id, "stderr", text, strlen (text));
      return TRUE;
    }
  for (guint i = 0; i < skipped->len; i++)
    {
      g_autofree char *text = g_strdup_printf (_("[skipped %s in /workspace: not a regular file]\n"),
                                               (char *) g_ptr_array_index (skipped, i));

      assay_e2b_instance_send_stream (self, id, "stderr", text, strlen (text));
    }
  for (guint i = 0; i < changed->len && !g_atomic_int_get (&self->killed); i++)
    {
      Changed *item = g_ptr_array_index (changed, i);
      g_autofree char *path = g_strconcat (WORKSPACE "/", item->name, NULL);
      g_autoptr(GBytes) data = NULL;
      g_autoptr(GError) download_error = NULL;
      gboolean truncated = FALSE;
      const guint8 *bytes;
      gsize len;

      if ((guint64) seq >= max_artifacts)
        {
          *reason = g_strdup_printf (_("the cell saved more than %llu files"), (unsigned long long) max_artifacts);
          within = FALSE;
          break;
        }
      if (!(data = assay_e2b_client_download (self->client, self->sandbox, path, artifact_bytes, &truncated,
                                              &download_error)))
        {
          g_autofree char *text = g_strdup_printf (_("[%s could not be fetched: %s]\n"), item->name,
                                                   download_error->message);

          assay_e2b_instance_send_stream (self, id, "stderr", text, strlen (text));
          continue;
        }
      seq++;
      bytes = g_bytes_get_data (data, &len);
      {
        g_autoptr(JsonBuilder) begin = assay_e2b_message_begin ("artifact_begin", id);

        json_builder_set_member_name (begin, "seq");
        json_builder_add_int_value (begin, seq);
        json_builder_set_member_name (begin, "name");
        json_builder_add_string_value (begin, item->name);
        json_builder_set_member_name (begin, "bytes");
        json_builder_add_int_value (begin, len);
        json_builder_end_object (begin);
        assay_e2b_instance_send (self, begin);
      }
      for (gsize offset = 0; offset < len; offset += ARTIFACT_CHUNK)
        {
          g_autoptr(JsonBuilder) chunk = assay_e2b_message_begin ("artifact_data", id);
          g_autofree char *encoded = g_base64_encode (bytes + offset, MIN (ARTIFACT_CHUNK, len - offset));

          json_builder_set_member_name (chunk, "seq");
          json_builder_add_int_value (chunk, seq);
          json_builder_set_member_name (chunk, "data");
          json_builder_add_string_value (chunk, encoded);
          json_builder_end_object (chunk);
          assay_e2b_instance_send (self, chunk);
        }
      {
        g_autoptr(JsonBuilder) end = assay_e2b_message_begin ("artifact_end", id);

        json_builder_set_member_name (end, "seq");
        json_builder_add_int_value (end, seq);
        json_builder_set_member_name (end, "truncated");
        json_builder_add_boolean_value (end, truncated);
        json_builder_end_object (end);
        assay_e2b_instance_send (self, end);
      }
      if (truncated && within)
        {
          *reason = g_strdup_printf (_("%s is larger than %llu bytes and was cut"),
                                     item->name, (unsigned long long) artifact_bytes);
          within = FALSE;
        }
    }
  assay_e2b_instance_remember (self, changed);
  return within;
}

/* --- a cell ------------------------------------------------------------------------- */

typedef struct
{
  AssayE2bInstance *self;
  const char       *id;        /* NULL for the setup cell: nothing is sent */
  GString          *line;
  GString          *setup_stdout;
  gint64            execution_count;
  guint64           output_bytes;
  guint64           max_output_bytes;
  gboolean          ended;
  gboolean          errored;
  gboolean          interrupted_error;
  gboolean          over_limit;
  gboolean          line_too_long;
  gboolean          kernel_restarted;
  char             *error_reason;
} Cell;

static void
assay_e2b_cell_send_result (Cell       *cell,
                            JsonObject *event)
{
  static const struct { const char *field; const char *mime; } formats[] = {
    { "text", "text/plain" }, { "html", "text/html" }, { "markdown", "text/markdown" },
    { "svg", "image/svg+xml" }, { "png", "image/png" }, { "jpeg", "image/jpeg" },
    { "latex", "text/latex" }, { "javascript", "application/javascript" },
  };
  g_autoptr(JsonBuilder) builder = assay_e2b_message_begin ("output", cell->id);
  gboolean main_result = assay_json_get_boolean_or (event, "is_main_result", FALSE);
  gsize total = 0;
  guint n = 0;

  json_builder_set_member_name (builder, "output");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "output_type");
  json_builder_add_string_value (builder, main_result ? "execute_result" : "display_data");
  if (main_result)
    {
      json_builder_set_member_name (builder, "execution_count");
      json_builder_add_int_value (builder, MAX (cell->execution_count, 0));
    }
  json_builder_set_member_name (builder, "data");
  json_builder_begin_object (builder);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      const char *value = assay_json_get_string (event, formats[i].field);
      gsize len = value != NULL ? strlen (value) : 0;

      if (value == NULL)
        continue;
      /* One message stays under the channel's 4 MiB a line. */
      if (total + len > MAX_RESULT_DATA)
        {
          json_builder_set_member_name (builder, "text/plain");
          json_builder_add_string_value (builder, _("[a result too large to show]"));
          n++;
          break;
        }
      total += len;
      json_builder_set_member_name (builder, formats[i].mime);
      json_builder_add_string_value (builder, value);
      n++;
    }
  if (n == 0)
    {
      json_builder_set_member_name (builder, "text/plain");
      json_builder_add_string_value (builder, "");
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "metadata");
  json_builder_begin_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  assay_e2b_instance_send (cell->self, builder);
}

static void
assay_e2b_cell_send_error (Cell       *cell,
                           JsonObject *event)
{
  g_autoptr(JsonBuilder) builder = assay_e2b_message_begin ("output", cell->id);
  const char *name = assay_json_get_string (event, "name");
  const char *value = assay_json_get_string (event, "value");
  const char *traceback = assay_json_get_string (event, "traceback");
  g_auto(GStrv) lines = g_strsplit (traceback != NULL ? traceback : "", "\n", 1000);

  if (name == NULL)
    name = "Error";
  if (value == NULL)
    value = "";
  cell->errored = TRUE;
  cell->interrupted_error = g_str_equal (name, "KeyboardInterrupt");
  /* The interpreter's kernel died and Jupyter started it again: the state is gone. */
  cell->kernel_restarted = g_str_equal (name, "ContextRestarting");
  if (cell->kernel_restarted)
    return;
  if (cell->error_reason == NULL)
    cell->error_reason = g_strdup_printf ("%s: %s", name, value);

  json_builder_set_member_name (builder, "output");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "output_type");
  json_builder_add_string_value (builder, "error");
  json_builder_set_member_name (builder, "ename");
  json_builder_add_string_value (builder, name);
  json_builder_set_member_name (builder, "evalue");
  json_builder_add_string_value (builder, value);
  json_builder_set_member_name (builder, "traceback");
  json_builder_begin_array (builder);
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0' || lines[i + 1] != NULL)
      json_builder_add_string_value (builder, lines[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  assay_e2b_instance_send (cell->self, builder);
}

/* One NDJSON event of the interpreter's /execute stream
 * (code-interpreter template/server/messaging.py, stream.py). Unknown types are skipped:
 * newer servers add some. Returns FALSE to end the transfer. */
static gboolean
assay_e2b_cell_handle_event (Cell       *cell,
                             const char *text,
                             gsize       len)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *event;
  const char *type;

  if (len == 0)
    return TRUE;
  if (!assay_json_parser_load_untrusted (parser, text, len, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return TRUE;
  event = json_node_get_object (json_parser_get_root (parser));
  if ((type = assay_json_get_string (event, "type")) == NULL)
    return TRUE;

  if (g_str_equal (type, "stdout") || g_str_equal (type, "stderr"))
    {
      const char *chunk = assay_json_get_string (event, "text");
      gsize chunk_len = chunk != NULL ? strlen (chunk) : 0;

      if (chunk == NULL)
        return TRUE;
      if (cell->id == NULL)
        {
          if (g_str_equal (type, "stdout"))
            g_string_append (cell->setup_stdout, chunk);
          return TRUE;
        }
      if (cell->output_bytes + chunk_len > cell->max_output_bytes)
        {
          g_autofree char *marker = NULL;

          chunk_len = cell->max_output_bytes - cell->output_bytes;
          assay_e2b_instance_send_stream (cell->self, cell->id, type, chunk, chunk_len);
          marker = g_strdup_printf (_("\n[output truncated: more than %llu bytes]\n"),
                                    (unsigned long long) cell->max_output_bytes);
          assay_e2b_instance_send_stream (cell->self, cell->id, "stderr", marker, strlen (marker));
          cell->output_bytes = cell->max_output_bytes;
          cell->over_limit = TRUE;
          /* Closing the request interrupts the interpreter's kernel. */
          return FALSE;
        }
      cell->output_bytes += chunk_len;
      assay_e2b_instance_send_stream (cell->self, cell->id, type, chunk, chunk_len);
    }
  else if (g_str_equal (type, "result"))
    {
      if (cell->id != NULL)
        assay_e2b_cell_send_result (cell, event);
    }
  else if (g_str_equal (type, "error"))
    {
      if (cell->id != NULL)
        assay_e2b_cell_send_error (cell, event);
      else
        {
          cell->errored = TRUE;
          g_free (cell->error_reason);
          cell->error_reason = g_strdup_printf ("%s: %s", assay_json_get_string (event, "name") ?: "Error",
                                                assay_json_get_string (event, "value") ?: "");
        }
    }
  else if (g_str_equal (type, "number_of_executions"))
    cell->execution_count = MAX (assay_json_get_int_or (event, "execution_count", 0) - cell->self->count_offset, 0);
  else if (g_str_equal (type, "end_of_execution"))
    cell->ended = TRUE;
  return TRUE;
}

static gboolean
assay_e2b_cell_on_data (const char *data,
                        gsize       len,
                        gpointer    user_data)
{
  Cell *cell = user_data;

  for (gsize i = 0; i < len; i++)
    {
      if (data[i] != '\n')
        {
          if (cell->line->len >= MAX_EVENT_LINE)
            {
              cell->line_too_long = TRUE;
              return FALSE;
            }
          g_string_append_c (cell->line, data[i]);
          continue;
        }
      if (!assay_e2b_cell_handle_event (cell, cell->line->str, cell->line->len))
        return FALSE;
      g_string_truncate (cell->line, 0);
    }
  return TRUE;
}

/* After an interrupt: an empty execution, which the interpreter runs once its kernel is free.
 * FALSE when the sandbox was killed meanwhile. Another interrupt closes it again (and the
 * interpreter interrupts again). */
static gboolean
assay_e2b_instance_wait_idle (AssayE2bInstance *self)
{
  static const char probe[] = "{\"code\":\"None\",\"language\":\"python\"}";
  g_autoptr(GBytes) body = g_bytes_new_static (probe, strlen (probe));

  for (;;)
    {
      g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
      g_autoptr(GError) error = NULL;

      g_atomic_int_set (&self->stop, g_atomic_int_get (&self->killed));
      if (g_atomic_int_get (&self->killed))
        return FALSE;
      if (assay_e2b_client_sandbox_request (self->client, self->sandbox, ASSAY_E2B_INTERPRETER_PORT, "POST",
                                            "/execute", "application/json", body, 0, NULL, NULL, &self->stop,
                                            &response, &error))
        {
          /* The probe was an execution of the kernel's: the cells' counts go on from theirs. */
          self->count_offset++;
          return !g_atomic_int_get (&self->killed);
        }
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return !g_atomic_int_get (&self->killed);
    }
}

/* POSTs CODE to /execute and turns what streams back into outputs of cell ID (none for the
 * setup cell). Returns FALSE with a fatal reason when the sandbox is gone or unusable;
 * else fills STATUS and REASON for the cell's done. */
static gboolean
assay_e2b_instance_run (AssayE2bInstance  *self,
                        Cell              *cell,
                        const char        *code,
                        const char       **status,
                        char             **reason,
                        char             **fatal)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  char *text;
  gboolean answered;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "code");
  json_builder_add_string_value (builder, code);
  json_builder_set_member_name (builder, "language");
  json_builder_add_string_value (builder, "python");
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  text = json_to_string (root, FALSE);
  body = g_bytes_new_take (text, strlen (text));

  answered = assay_e2b_client_sandbox_request (self->client, self->sandbox, ASSAY_E2B_INTERPRETER_PORT, "POST",
                                               "/execute", "application/json", body,
                                               cell->id == NULL ? SETUP_TIMEOUT_S : 0,
                                               assay_e2b_cell_on_data, cell, &self->stop, &response, &error);
  if (g_atomic_int_get (&self->killed))
    {
      *status = NULL;
      return TRUE;
    }
  if (answered && response.status == 200 && cell->line->len > 0)
    assay_e2b_cell_handle_event (cell, cell->line->str, cell->line->len);

  if (cell->over_limit)
    {
      /* Closing the request interrupted the cell; the next one waits until it has stopped. */
      if (!assay_e2b_instance_wait_idle (self))
        {
          *status = NULL;
          return TRUE;
        }
      *status = "limit";
      *reason = g_strdup_printf (_("the cell printed more than %llu bytes"),
                                 (unsigned long long) cell->max_output_bytes);
      return TRUE;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && cell->id != NULL)
    {
      /* The interpreter interrupts its kernel when the request closes, but whether the cell
       * yields is known only once the kernel takes the next execution: until then the cell
       * counts as running, and a cell that ignores the interrupt is killed by the session
       * after its grace period, as in Assay's own kernel. */
      if (!assay_e2b_instance_wait_idle (self))
        {
          *status = NULL;
          return TRUE;
        }
      *status = "interrupted";
      *reason = g_strdup (_("interrupted: the request to E2B's interpreter was closed, which interrupts its kernel"));
      return TRUE;
    }
  if (cell->ended && cell->interrupted_error && g_atomic_int_get (&self->interrupt))
    {
      *status = "interrupted";
      *reason = g_strdup (_("interrupted: the request to E2B's interpreter was closed, which interrupts its kernel"));
      return TRUE;
    }
  if (cell->line_too_long)
    {
      *fatal = g_strdup_printf (_("E2B's interpreter sent a line longer than %d bytes"), MAX_EVENT_LINE);
      return FALSE;
    }
  if (cell->kernel_restarted)
    {
      *fatal = g_strdup (_("the kernel in the E2B sandbox died during the cell and was started again (it may have "
                           "run out of the template's memory); the session's state is lost"));
      return FALSE;
    }
  if (answered && response.status == 200 && cell->ended)
    {
      *status = cell->errored ? "error" : "ok";
      if (cell->errored)
        *reason = g_strdup (cell->error_reason);
      return TRUE;
    }
  /* The sandbox's proxy answers 502 for a sandbox that is not running, some paths 404. */
  if ((*fatal = assay_e2b_instance_check_gone (self)) != NULL)
    return FALSE;
  if (answered && response.status != 200)
    {
      g_autofree char *described = assay_e2b_describe_error (&response);

      if (response.status == 401 || response.status == 403)
        {
          *fatal = g_strdup_printf (_("E2B refused the sandbox's access token (%s)"), described);
          return FALSE;
        }
      *status = "error";
      *reason = g_strdup_printf (_("E2B did not run the cell: %s"), described);
      return TRUE;
    }
  /* The stream stopped before end_of_execution, and the sandbox is still there. */
  *status = "error";
  *reason = g_strdup_printf (_("%s before the cell finished; the outputs shown are those that arrived, and "
                               "what the cell did to the kernel's state is unknown"),
                             error != NULL ? error->message : _("E2B's answer ended early"));
  return TRUE;
}

static void
assay_e2b_cell_clear (Cell *cell)
{
  g_string_free (cell->line, TRUE);
  g_string_free (cell->setup_stdout, TRUE);
  g_free (cell->error_reason);
}

static void
assay_e2b_instance_execute (AssayE2bInstance *self,
                            const char       *line)
{
  g_autoptr(JsonNode) root = assay_json_from_untrusted (line, NULL);
  JsonObject *message = root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonObject *limits = assay_json_get_object (message, "limits");
  const char *id = assay_json_get_string (message, "id");
  const char *code = assay_json_get_string (message, "code");
  Cell cell = { self, id, g_string_new (NULL), g_string_new (NULL), 0, 0, 0 };
  g_autofree char *reason = NULL;
  g_autofree char *fatal = NULL;
  g_autofree char *artifact_reason = NULL;
  g_autoptr(GError) error = NULL;
  const char *status = NULL;
  gint64 started;

  if (id == NULL || code == NULL)
    {
      assay_e2b_cell_clear (&cell);
      assay_e2b_instance_fatal (self, _("the session sent a malformed execute message"));
      return;
    }
  cell.max_output_bytes = assay_json_get_int_or (limits, "output_bytes", self->limits.output_bytes);

  /* The sandbox lives as long as the cell may run and some more, from now on: extended once a
   * minute at most, which spares a round trip per cell while the lifetime keeps its margin. */
  if (g_get_monotonic_time () - self->extended_at > REFRESH_INTERVAL_US)
    {
      if (assay_e2b_client_set_timeout (self->client, self->sandbox->id, self->lifetime_s, &error))
        self->extended_at = g_get_monotonic_time ();
      else if ((fatal = assay_e2b_instance_check_gone (self)) != NULL)
        {
          assay_e2b_cell_clear (&cell);
          assay_e2b_instance_fatal (self, fatal);
          return;
        }
    }

  started = g_get_monotonic_time ();
  if (!assay_e2b_instance_run (self, &cell, code, &status, &reason, &fatal))
    {
      assay_e2b_cell_clear (&cell);
      assay_e2b_instance_fatal (self, fatal);
      return;
    }
  if (status == NULL)
    {
      assay_e2b_cell_clear (&cell);
      return;
    }
  if (!assay_e2b_instance_send_artifacts (self, id,
                                          assay_json_get_int_or (limits, "artifact_bytes", self->limits.artifact_bytes),
                                          assay_json_get_int_or (limits, "artifacts", self->limits.artifacts),
                                          &artifact_reason))
    {
      status = "limit";
      g_free (reason);
      reason = g_steal_pointer (&artifact_reason);
    }
  if (!g_atomic_int_get (&self->killed))
    assay_e2b_instance_send_done (self, id, status, reason, cell.execution_count,
                                  g_get_monotonic_time () - started);
  assay_e2b_cell_clear (&cell);
}

/* Before ready: the datasets uploaded, the paths set up, the workspace's files as they are. */
static gboolean
assay_e2b_instance_prepare (AssayE2bInstance  *self,
                            char             **python,
                            char             **fatal)
{
  Cell cell = { self, NULL, g_string_new (NULL), g_string_new (NULL), 0, 0, G_MAXUINT64 };
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) existing = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;
  const char *status = NULL;

  if (!assay_e2b_instance_upload_data (self, &error))
    {
      *fatal = g_strdup_printf (_("the datasets could not be sent to E2B: %s"), error->message);
      assay_e2b_cell_clear (&cell);
      return FALSE;
    }
  if (!assay_e2b_instance_run (self, &cell, setup_code, &status, &reason, fatal))
    {
      assay_e2b_cell_clear (&cell);
      return FALSE;
    }
  if (status == NULL || !g_str_equal (status, "ok"))
    {
      *fatal = g_strdup_printf (_("the E2B template “%s” cannot run Assay's cells: %s"),
                                assay_e2b_client_get_template (self->client),
                                cell.error_reason != NULL ? cell.error_reason : reason != NULL ? reason : status);
      assay_e2b_cell_clear (&cell);
      return FALSE;
    }
  *python = g_strstrip (g_strdup (cell.setup_stdout->str));
  self->count_offset = cell.execution_count;
  assay_e2b_cell_clear (&cell);
  if ((existing = assay_e2b_instance_scan (self, skipped, NULL)) != NULL)
    assay_e2b_instance_remember (self, existing);
  return TRUE;
}

static gpointer
assay_e2b_instance_executor (gpointer user_data)
{
  AssayE2bInstance *self = user_data;
  g_autofree char *python = NULL;
  g_autofree char *fatal = NULL;
  gboolean ended;

  if (!assay_e2b_instance_prepare (self, &python, &fatal))
    {
      if (!g_atomic_int_get (&self->killed))
        assay_e2b_instance_fatal (self, fatal);
      return NULL;
    }
  {
    g_autoptr(JsonBuilder) ready = assay_e2b_message_begin ("ready", NULL);

    json_builder_set_member_name (ready, "protocol");
    json_builder_add_int_value (ready, 1);
    json_builder_set_member_name (ready, "python");
    json_builder_add_string_value (ready, python);
    json_builder_set_member_name (ready, "preloaded");
    json_builder_begin_array (ready);
    json_builder_add_string_value (ready, "pandas");
    json_builder_add_string_value (ready, "matplotlib");
    json_builder_end_array (ready);
    json_builder_end_object (ready);
    assay_e2b_instance_send (self, ready);
  }

  for (;;)
    {
      g_autofree char *line = g_async_queue_pop (self->cells);

      if (line[0] == '\0' || g_atomic_int_get (&self->killed))
        break;
      assay_e2b_instance_execute (self, line);
      g_mutex_lock (&self->mutex);
      ended = self->ended;
      g_mutex_unlock (&self->mutex);
      if (ended)
        break;
      /* An interrupt applies to the cell it was sent for, never to the next one. */
      if (g_atomic_int_dec_and_test (&self->pending))
        {
          g_atomic_int_set (&self->interrupt, 0);
          if (!g_atomic_int_get (&self->killed))
            g_atomic_int_set (&self->stop, 0);
        }
    }
  assay_e2b_instance_end (self, 0, 0, NULL);
  return NULL;
}

/* Reads the session's messages. Execute lines queue up for the executor; an interrupt
 * stops the transfer under way at once. */
static gpointer
assay_e2b_instance_reader (gpointer user_data)
{
  AssayE2bInstance *self = user_data;
  g_autoptr(GString) line = g_string_new (NULL);
  char buffer[64 * 1024];

  for (;;)
    {
      struct pollfd fds[2] = { { self->bridge_in, POLLIN, 0 }, { self->wake[0], POLLIN, 0 } };
      gssize n;

      if (poll (fds, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      if (fds[1].revents != 0)
        break;
      n = read (self->bridge_in, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      for (gssize i = 0; i < n; i++)
        {
          g_autoptr(JsonNode) root = NULL;
          JsonObject *message;
          const char *type;

          if (buffer[i] != '\n')
            {
              if (line->len < MAX_HOST_LINE)
                g_string_append_c (line, buffer[i]);
              continue;
            }
          root = assay_json_from_untrusted (line->str, NULL);
          message = root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
          type = assay_json_get_string (message, "type");
          if (g_strcmp0 (type, "execute") == 0)
            {
              g_atomic_int_inc (&self->pending);
              g_async_queue_push (self->cells, g_strdup (line->str));
            }
          else if (g_strcmp0 (type, "interrupt") == 0 && g_atomic_int_get (&self->pending) > 0)
            {
              g_atomic_int_set (&self->interrupt, 1);
              g_atomic_int_set (&self->stop, 1);
            }
          else if (g_strcmp0 (type, "shutdown") == 0)
            goto out;
          g_string_truncate (line, 0);
        }
    }
out:
  g_async_queue_push (self->cells, g_strdup (""));
  return NULL;
}

/* --- the instance ------------------------------------------------------------------- */

static GOutputStream *
assay_e2b_instance_get_stdin (AssaySandboxInstance *instance)
{
  return ASSAY_E2B_INSTANCE (instance)->host_stdin;
}

static GInputStream *
assay_e2b_instance_get_stdout (AssaySandboxInstance *instance)
{
  return ASSAY_E2B_INSTANCE (instance)->host_stdout;
}

static gpointer
assay_e2b_instance_killer (gpointer user_data)
{
  AssayE2bInstance *self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean deleted;

  deleted = assay_e2b_client_kill_sandbox (self->client, self->sandbox->id, &error);
  if (!deleted)
    g_message ("The E2B sandbox %s could not be ended: %s (E2B ends it at its timeout)", self->sandbox->id,
               error->message);
  g_mutex_lock (&self->mutex);
  self->deleted = TRUE;
  g_mutex_unlock (&self->mutex);
  return NULL;
}

static void
assay_e2b_instance_kill (AssaySandboxInstance *instance)
{
  AssayE2bInstance *self = ASSAY_E2B_INSTANCE (instance);
  gboolean first;

  first = g_atomic_int_compare_and_exchange (&self->killed, 0, 1);
  g_atomic_int_set (&self->stop, 1);
  if (!first)
    return;
  if (write (self->wake[1], "k", 1) < 0)
    g_debug ("the reader's wake-up pipe is closed");
  g_async_queue_push (self->cells, g_strdup (""));
  assay_e2b_instance_end (self, -1, 9, NULL);
  /* Killing is immediate for the session; the DELETE, an HTTP round trip, goes on aside. */
  g_mutex_lock (&self->mutex);
  if (!self->deleted && self->killer == NULL)
    self->killer = g_thread_new ("assay-e2b-kill", assay_e2b_instance_killer, self);
  g_mutex_unlock (&self->mutex);
}

static gboolean
assay_e2b_instance_wait (AssaySandboxInstance  *instance,
                         AssaySandboxExit      *exit_out,
                         GCancellable          *cancellable,
                         GError               **error)
{
  AssayE2bInstance *self = ASSAY_E2B_INSTANCE (instance);

  g_mutex_lock (&self->mutex);
  while (!self->ended)
    {
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_mutex_unlock (&self->mutex);
          return !g_cancellable_set_error_if_cancelled (cancellable, error);
        }
      g_cond_wait_until (&self->cond, &self->mutex, g_get_monotonic_time () + G_TIME_SPAN_MILLISECOND * 100);
    }
  *exit_out = self->exit;
  g_mutex_unlock (&self->mutex);
  return TRUE;
}

static void
assay_e2b_instance_join (AssayE2bInstance *self)
{
  GThread *killer;

  g_clear_pointer (&self->reader, g_thread_join);
  g_clear_pointer (&self->executor, g_thread_join);
  g_mutex_lock (&self->mutex);
  killer = g_steal_pointer (&self->killer);
  g_mutex_unlock (&self->mutex);
  if (killer != NULL)
    g_thread_join (killer);
}

static void
assay_e2b_instance_destroy (AssaySandboxInstance *instance)
{
  AssayE2bInstance *self = ASSAY_E2B_INSTANCE (instance);
  gboolean deleted;

  assay_e2b_instance_kill (instance);
  assay_e2b_instance_join (self);
  g_mutex_lock (&self->mutex);
  deleted = self->deleted;
  g_mutex_unlock (&self->mutex);
  if (!deleted)
    assay_e2b_instance_killer (self);
}

/* The session told the kernel to shut down: the threads end, then the sandbox is paused
 * instead of ended. One that cannot be paused is ended (the caller destroys). */
static gboolean
assay_e2b_instance_suspend (AssaySandboxInstance  *instance,
                            GError               **error)
{
  AssayE2bInstance *self = ASSAY_E2B_INSTANCE (instance);
  gboolean deleted;

  g_mutex_lock (&self->mutex);
  deleted = self->deleted;
  g_mutex_unlock (&self->mutex);
  if (deleted || g_atomic_int_get (&self->killed))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, _("the E2B sandbox was already ended"));
      return FALSE;
    }
  /* The reader ends at the shutdown the session sent, the executor after its cell; waking
   * the reader too ends it when the session sent nothing. */
  if (write (self->wake[1], "s", 1) < 0)
    g_debug ("the reader's wake-up pipe is closed");
  g_async_queue_push (self->cells, g_strdup (""));
  assay_e2b_instance_join (self);
  if (g_atomic_int_get (&self->killed))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, _("the E2B sandbox was already ended"));
      return FALSE;
    }
  if (!assay_e2b_client_pause_sandbox (self->client, self->sandbox->id, error))
    return FALSE;
  g_atomic_int_set (&self->killed, 1);
  assay_e2b_instance_end (self, 0, 0, NULL);
  g_mutex_lock (&self->mutex);
  self->deleted = TRUE;    /* kept, not to be ended by destroy or dispose */
  g_mutex_unlock (&self->mutex);
  g_debug ("E2B sandbox %s paused", self->sandbox->id);
  return TRUE;
}

static char *
assay_e2b_instance_dup_resume_id (AssaySandboxInstance *instance)
{
  return g_strdup (ASSAY_E2B_INSTANCE (instance)->sandbox->id);
}

static char *
assay_e2b_instance_dup_stderr_tail (AssaySandboxInstance *instance)
{
  AssayE2bInstance *self = ASSAY_E2B_INSTANCE (instance);
  char *tail;

  g_mutex_lock (&self->mutex);
  tail = g_strdup (self->last_error);
  g_mutex_unlock (&self->mutex);
  return tail;
}

static gboolean
assay_e2b_instance_add_file (AssaySandboxInstance  *instance,
                             const char            *name,
                             GError               **error)
{
  AssayE2bInstance *self = ASSAY_E2B_INSTANCE (instance);

  return assay_e2b_instance_upload_file (self, name, error);
}

static void
assay_e2b_instance_dispose (GObject *object)
{
  AssayE2bInstance *self = (AssayE2bInstance *) object;

  /* Never leave a sandbox running (and billed) behind. */
  if (self->sandbox != NULL && (self->executor != NULL || self->killer != NULL))
    assay_e2b_instance_destroy (ASSAY_SANDBOX_INSTANCE (self));

  G_OBJECT_CLASS (assay_e2b_instance_parent_class)->dispose (object);
}

static void
assay_e2b_instance_finalize (GObject *object)
{
  AssayE2bInstance *self = (AssayE2bInstance *) object;

  g_clear_object (&self->host_stdin);
  g_clear_object (&self->host_stdout);
  if (self->bridge_in >= 0)
    close (self->bridge_in);
  if (self->bridge_out >= 0)
    close (self->bridge_out);
  for (guint i = 0; i < 2; i++)
    if (self->wake[i] >= 0)
      close (self->wake[i]);
  g_clear_pointer (&self->cells, g_async_queue_unref);
  g_clear_pointer (&self->seen, g_hash_table_unref);
  g_clear_pointer (&self->sandbox, assay_e2b_sandbox_free);
  g_clear_object (&self->client);
  g_free (self->data_dir);
  g_free (self->last_error);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (assay_e2b_instance_parent_class)->finalize (object);
}

static void
assay_e2b_instance_class_init (AssayE2bInstanceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AssaySandboxInstanceClass *instance_class = ASSAY_SANDBOX_INSTANCE_CLASS (klass);

  object_class->dispose = assay_e2b_instance_dispose;
  object_class->finalize = assay_e2b_instance_finalize;
  instance_class->get_stdin = assay_e2b_instance_get_stdin;
  instance_class->get_stdout = assay_e2b_instance_get_stdout;
  instance_class->kill = assay_e2b_instance_kill;
  instance_class->wait = assay_e2b_instance_wait;
  instance_class->destroy = assay_e2b_instance_destroy;
  instance_class->dup_stderr_tail = assay_e2b_instance_dup_stderr_tail;
  instance_class->add_file = assay_e2b_instance_add_file;
  instance_class->suspend = assay_e2b_instance_suspend;
  instance_class->dup_resume_id = assay_e2b_instance_dup_resume_id;
}

static void
assay_e2b_instance_init (AssayE2bInstance *self)
{
  self->bridge_in = self->bridge_out = -1;
  self->wake[0] = self->wake[1] = -1;
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->cells = g_async_queue_new_full (g_free);
  self->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

AssayE2bInstance *
assay_e2b_instance_new (AssayE2bClient          *client,
                        AssayE2bSandbox         *sandbox,
                        const AssaySandboxSpec  *spec,
                        guint                    lifetime_s)
{
  AssayE2bInstance *self;
  int to_kernel[2];
  int from_kernel[2];

  g_return_val_if_fail (ASSAY_IS_E2B_CLIENT (client), NULL);
  g_return_val_if_fail (sandbox != NULL, NULL);

  self = g_object_new (ASSAY_TYPE_E2B_INSTANCE, NULL);
  self->client = g_object_ref (client);
  self->sandbox = sandbox;
  self->data_dir = g_strdup (spec->data_dir);
  self->limits = spec->limits;
  self->lifetime_s = lifetime_s;
  self->extended_at = g_get_monotonic_time ();
  if (!g_unix_open_pipe (to_kernel, FD_CLOEXEC, NULL) || !g_unix_open_pipe (from_kernel, FD_CLOEXEC, NULL) ||
      !g_unix_open_pipe (self->wake, FD_CLOEXEC, NULL))
    g_error ("Cannot make a pipe: %s", g_strerror (errno));
  self->host_stdin = g_unix_output_stream_new (to_kernel[1], TRUE);
  self->bridge_in = to_kernel[0];
  self->host_stdout = g_unix_input_stream_new (from_kernel[0], TRUE);
  self->bridge_out = from_kernel[1];
  if (!g_unix_set_fd_nonblocking (self->bridge_out, TRUE, NULL))
    g_error ("Cannot make a pipe non-blocking: %s", g_strerror (errno));
  self->reader = g_thread_new ("assay-e2b-reader", assay_e2b_instance_reader, self);
  self->executor = g_thread_new ("assay-e2b-cells", assay_e2b_instance_executor, self);
  return self;
}

const char *
assay_e2b_instance_get_sandbox_id (AssayE2bInstance *self)
{
  g_return_val_if_fail (ASSAY_IS_E2B_INSTANCE (self), NULL);

  return self->sandbox->id;
}
