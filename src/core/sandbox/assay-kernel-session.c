/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assay-kernel-channel.h"
#include "assay-kernel-session.h"

#define BOOT_TIMEOUT_MS (120 * 1000)
#define MAX_STORED_NAME 100
#define MAX_RICH_OUTPUTS 10000   /* display_data, execute_result and error outputs per cell */

typedef enum
{
  STATE_NEW,
  STATE_BOOTING,
  STATE_READY,
  STATE_RUNNING,
  STATE_RECOVERING,
  STATE_DEAD,
  STATE_CLOSED,
} State;

typedef struct
{
  GTask           *task;             /* NULL for a replayed cell */
  AssayCellResult *result;
  char            *id;
  char            *code;
  gint64           sent_at;
  guint            timeout_source;
  guint            grace_source;
  gulong           cancel_handler;
  GCancellable    *cancellable;
  AssayCellStatus  interrupt_status;
  guint            interrupted : 1;
  guint            killed : 1;
  guint            hit_limit : 1;
  char            *limit_reason;
  /* The artifact being received. */
  gint64           artifact_seq;
  int              artifact_fd;
  AssayArtifact   *artifact;
  guint            artifact_count;
  guint64          artifacts_bytes;   /* stored for this cell so far */
  guint            rich_outputs;      /* outputs other than streams */
  char            *store_error;
  guint64          output_bytes;     /* held in memory for this cell */
} Cell;

struct _AssayKernelSession
{
  GObject               parent_instance;

  AssaySandboxBackend  *backend;
  AssaySandboxSpec     *spec;
  char                 *artifact_dir;
  GMainContext         *context;

  State                 state;
  AssaySandboxInstance *instance;
  AssayKernelChannel   *channel;
  char                 *fatal_reason;

  GTask                *boot_task;
  guint                 boot_timeout_source;

  Cell                 *cell;
  Cell                 *parked;           /* the cell whose sandbox died, during recovery */
  GQueue                waiting;          /* GTask of execute calls not started yet */
  GPtrArray            *succeeded;        /* code of the cells that ran ok, for replay */
  guint                 replay_index;
  guint                 replayed;
  gboolean              replay_failed;
  guint                 cell_counter;

  gboolean              replay_on_restart;
  gboolean              owns_data_dir;
  int                   stage_lock_fd;  /* held while the data folder is in use, or -1 */
  gboolean              no_checks;      /* the cells' checks are off */
  gboolean              keep_on_close;  /* close keeps the sandbox for later when it can */
  gboolean              resuming;       /* the launch under way resumes spec's resume_id */
  gboolean              resumed;        /* the first sandbox was the one kept for later */
  char                 *resume_note;    /* why it was not, in words */
};

G_DEFINE_FINAL_TYPE (AssayKernelSession, assay_kernel_session, G_TYPE_OBJECT)

enum {
  OUTPUT,
  RESTARTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void assay_kernel_session_boot (AssayKernelSession *self, GTask *task);
static void assay_kernel_session_run_next (AssayKernelSession *self);
static void assay_kernel_session_send_cell (AssayKernelSession *self, Cell *cell);
static void assay_kernel_session_recover (AssayKernelSession *self);

/* ---- cells ---------------------------------------------------------------------------- */

static void
assay_kernel_session_cell_close_artifact (Cell *cell)
{
  if (cell->artifact_fd >= 0)
    {
      close (cell->artifact_fd);
      cell->artifact_fd = -1;
    }
  g_clear_pointer (&cell->artifact, assay_artifact_free);
  cell->artifact_seq = -1;
}

static void
assay_kernel_session_cell_free (Cell *cell)
{
  g_clear_handle_id (&cell->timeout_source, g_source_remove);
  g_clear_handle_id (&cell->grace_source, g_source_remove);
  if (cell->cancel_handler != 0)
    g_cancellable_disconnect (cell->cancellable, cell->cancel_handler);
  assay_kernel_session_cell_close_artifact (cell);
  g_clear_object (&cell->cancellable);
  g_clear_object (&cell->task);
  g_clear_object (&cell->result);
  g_free (cell->id);
  g_free (cell->code);
  g_free (cell->limit_reason);
  g_free (cell->store_error);
  g_free (cell);
}

static void
assay_kernel_session_set_limit (Cell       *cell,
                                const char *reason)
{
  cell->hit_limit = TRUE;
  if (cell->limit_reason == NULL)
    cell->limit_reason = g_strdup (reason);
}

/* Finishes the running cell and hands the result to its caller. */
static void
assay_kernel_session_complete_cell (AssayKernelSession *self)
{
  g_autoptr(AssayKernelSession) hold = NULL;
  Cell *cell = g_steal_pointer (&self->cell);

  if (cell == NULL)
    return;
  /* The caller's callback may drop the last reference to the kernel (a run again that ends
   * on this cell closes and frees it): SELF must outlive what follows. */
  hold = g_object_ref (self);

  g_clear_handle_id (&cell->timeout_source, g_source_remove);
  g_clear_handle_id (&cell->grace_source, g_source_remove);
  assay_kernel_session_cell_close_artifact (cell);

  if (cell->task != NULL)
    {
      if (cell->store_error != NULL && assay_cell_result_get_status (cell->result) == ASSAY_CELL_OK)
        assay_cell_result_set_status (cell->result, ASSAY_CELL_LIMIT, cell->store_error);
      g_task_return_pointer (cell->task, g_object_ref (cell->result), g_object_unref);
    }

  assay_kernel_session_cell_free (cell);

  if (self->state == STATE_RUNNING)
    self->state = STATE_READY;
  assay_kernel_session_run_next (self);
}

static gboolean
assay_kernel_session_grace_expired_cb (gpointer user_data)
{
  AssayKernelSession *self = user_data;
  Cell *cell = self->cell;

  cell->grace_source = 0;
  /* The cell ignored the interrupt: only killing the sandbox stops it. */
  cell->killed = TRUE;
  if (self->instance != NULL)
    assay_sandbox_instance_kill (self->instance);
  return G_SOURCE_REMOVE;
}

static void
assay_kernel_session_interrupt_cell (AssayKernelSession *self,
                                     AssayCellStatus     status)
{
  Cell *cell = self->cell;
  g_autoptr(JsonObject) message = NULL;

  if (cell == NULL || cell->interrupted)
    return;

  cell->interrupted = TRUE;
  cell->interrupt_status = status;

  message = json_object_new ();
  json_object_set_string_member (message, "type", "interrupt");
  assay_kernel_channel_send (self->channel, message);

  cell->grace_source = g_timeout_add (self->spec->limits.grace_ms,
                                      assay_kernel_session_grace_expired_cb,
                                      self);
}

static gboolean
assay_kernel_session_timeout_cb (gpointer user_data)
{
  AssayKernelSession *self = user_data;

  self->cell->timeout_source = 0;
  assay_kernel_session_interrupt_cell (self, ASSAY_CELL_TIMEOUT);
  return G_SOURCE_REMOVE;
}

static gboolean
assay_kernel_session_cancelled_idle_cb (gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  AssayKernelSession *self = g_task_get_source_object (task);

  if (self->cell != NULL && self->cell->task == task && self->state == STATE_RUNNING)
    assay_kernel_session_interrupt_cell (self, ASSAY_CELL_CANCELLED);
  return G_SOURCE_REMOVE;
}

static void
assay_kernel_session_cell_cancelled_cb (GCancellable *cancellable,
                                        gpointer      user_data)
{
  GTask *task = user_data;
  AssayKernelSession *self = g_task_get_source_object (task);

  /* May run in any thread: hop to the session's context. */
  g_main_context_invoke (self->context, assay_kernel_session_cancelled_idle_cb, g_object_ref (task));
}

/* ---- artifacts ------------------------------------------------------------------------ */

static char *
assay_kernel_session_sanitize_component (const char *component)
{
  GString *out = g_string_new (NULL);

  for (const char *p = component; *p && out->len < MAX_STORED_NAME; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isalnum (c) || c == '.' || c == '-' || c == '_' || c == ' ')
        g_string_append_unichar (out, c);
      else
        g_string_append_c (out, '_');
    }
  while (out->len > 0 && (out->str[0] == '.' || out->str[0] == ' '))
    g_string_erase (out, 0, 1);
  if (out->len == 0)
    g_string_append (out, "file");
  return g_string_free (out, FALSE);
}

char *
assay_kernel_session_data_name (const char *file_name)
{
  g_return_val_if_fail (file_name != NULL, NULL);
  return assay_kernel_session_sanitize_component (file_name);
}

/* The name shown to the analyst: the relative path, each part cleaned, no "..". */
static char *
assay_kernel_session_sanitize_artifact_name (const char *name)
{
  g_auto(GStrv) parts = g_strsplit (name, "/", 32);
  g_autoptr(GPtrArray) clean = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (parts[i][0] == '\0' || g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
        continue;
      g_ptr_array_add (clean, assay_kernel_session_sanitize_component (parts[i]));
    }
  if (clean->len == 0)
    g_ptr_array_add (clean, g_strdup ("file"));
  g_ptr_array_add (clean, NULL);
  return g_strjoinv ("/", (char **) clean->pdata);
}

static int
assay_kernel_session_open_artifact_file (AssayKernelSession  *self,
                                         Cell                *cell,
                                         const char          *clean_name,
                                         char               **path_out,
                                         GError             **error)
{
  g_autofree char *base = NULL;
  g_autofree char *flat = g_strdup (clean_name);

  /* The stored name is ours: cell number, a counter and the flattened name. It never has
   * a slash, so it cannot leave the artifact folder, and O_EXCL|O_NOFOLLOW refuse anything
   * already there. */
  g_strdelimit (flat, "/", '_');
  if (strlen (flat) > MAX_STORED_NAME)
    {
      const char *dot = strrchr (flat, '.');
      g_autofree char *ext = g_strdup (dot && strlen (dot) < 12 ? dot : "");
      g_autofree char *head = g_utf8_substring (flat, 0, 60);

      base = g_strconcat (head, ext, NULL);
      g_free (flat);
      flat = g_steal_pointer (&base);
    }

  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_autofree char *stored = NULL;
      g_autofree char *path = NULL;
      int fd;

      if (attempt == 0)
        stored = g_strdup_printf ("%s-%s", cell->id, flat);
      else
        stored = g_strdup_printf ("%s-%u-%s", cell->id, attempt, flat);
      path = g_build_filename (self->artifact_dir, stored, NULL);
      fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd >= 0)
        {
          *path_out = g_steal_pointer (&path);
          return fd;
        }
      if (errno != EEXIST)
        {
          int saved = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("could not store the artifact “%s”: %s"), clean_name, g_strerror (saved));
          return -1;
        }
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
               _("could not find a free name for the artifact “%s”"), clean_name);
  return -1;
}

static void
assay_kernel_session_handle_artifact_begin (AssayKernelSession *self,
                                            Cell               *cell,
                                            JsonObject         *message)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *clean_name = NULL;
  g_autofree char *path = NULL;
  int fd;

  assay_kernel_session_cell_close_artifact (cell);
  if (cell->task == NULL)
    return; /* replayed cells recreate files inside the sandbox; the host has them already */

  if (++cell->artifact_count > self->spec->limits.artifacts)
    {
      assay_kernel_session_set_limit (cell, "the cell produced more artifacts than allowed");
      return;
    }
  if (cell->artifacts_bytes >= self->spec->limits.artifacts_bytes)
    {
      assay_kernel_session_set_limit (cell, "the cell's artifacts were larger than allowed together");
      return;
    }

  clean_name = assay_kernel_session_sanitize_artifact_name (json_object_get_string_member (message, "name"));
  fd = assay_kernel_session_open_artifact_file (self, cell, clean_name, &path, &error);
  if (fd < 0)
    {
      if (cell->store_error == NULL)
        cell->store_error = g_strdup (error->message);
      return;
    }

  cell->artifact_fd = fd;
  cell->artifact_seq = json_object_get_int_member (message, "seq");
  cell->artifact = g_new0 (AssayArtifact, 1);
  cell->artifact->name = g_steal_pointer (&clean_name);
  cell->artifact->path = g_steal_pointer (&path);
}

static void
assay_kernel_session_handle_artifact_data (AssayKernelSession *self,
                                           Cell               *cell,
                                           JsonObject         *message)
{
  const char *data = json_object_get_string_member (message, "data");
  guint64 cap = self->spec->limits.artifact_bytes;
  g_autofree guchar *bytes = NULL;
  gsize len = 0;
  gsize offset = 0;

  if (cell->artifact == NULL || json_object_get_int_member (message, "seq") != cell->artifact_seq)
    return;

  bytes = g_base64_decode (data, &len);
  if (cell->artifact->bytes + len > cap)
    {
      len = cap - cell->artifact->bytes;
      cell->artifact->truncated = TRUE;
      assay_kernel_session_set_limit (cell, "an artifact was larger than allowed and was cut");
    }
  if (cell->artifacts_bytes + len > self->spec->limits.artifacts_bytes)
    {
      len = self->spec->limits.artifacts_bytes - cell->artifacts_bytes;
      cell->artifact->truncated = TRUE;
      assay_kernel_session_set_limit (cell, "the cell's artifacts were larger than allowed together");
    }

  /* A run of zeros is skipped, not written: a sparse file stays sparse on the host's disk
   * (its size is set when it ends). */
  if (len > 0 && bytes[0] == 0 && memcmp (bytes, bytes + 1, len - 1) == 0 &&
      lseek (cell->artifact_fd, (off_t) len, SEEK_CUR) >= 0)
    offset = len;

  while (offset < len)
    {
      ssize_t n = write (cell->artifact_fd, bytes + offset, len - offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          if (cell->store_error == NULL)
            cell->store_error = g_strdup_printf (_("could not store the artifact “%s”: %s"),
                                                 cell->artifact->name, g_strerror (saved));
          g_unlink (cell->artifact->path);
          assay_kernel_session_cell_close_artifact (cell);
          return;
        }
      offset += n;
    }
  cell->artifact->bytes += len;
  cell->artifacts_bytes += len;
}

static void
assay_kernel_session_handle_artifact_end (AssayKernelSession *self,
                                          Cell               *cell,
                                          JsonObject         *message)
{
  g_autofree char *content_type = NULL;
  AssayArtifact *artifact;

  if (cell->artifact == NULL || json_object_get_int_member (message, "seq") != cell->artifact_seq)
    return;

  if (json_object_get_boolean_member (message, "truncated"))
    {
      cell->artifact->truncated = TRUE;
      assay_kernel_session_set_limit (cell, "an artifact was larger than allowed and was cut");
    }

  /* Zeros at the end were skipped: the file gets its full size. */
  if (ftruncate (cell->artifact_fd, (off_t) cell->artifact->bytes) != 0 && cell->store_error == NULL)
    cell->store_error = g_strdup_printf (_("could not store the artifact “%s”: %s"),
                                         cell->artifact->name, g_strerror (errno));
  close (cell->artifact_fd);
  cell->artifact_fd = -1;
  artifact = g_steal_pointer (&cell->artifact);
  content_type = g_content_type_guess (artifact->name, NULL, 0, NULL);
  artifact->mime = g_content_type_get_mime_type (content_type);
  if (artifact->mime == NULL)
    artifact->mime = g_strdup ("application/octet-stream");
  assay_cell_result_add_artifact (cell->result, artifact);
  cell->artifact_seq = -1;
}

/* ---- messages from the kernel --------------------------------------------------------- */

static void
assay_kernel_session_finish_replay_cell (AssayKernelSession *self,
                                         gboolean            ok);

static void
assay_kernel_session_handle_done (AssayKernelSession *self,
                                  Cell               *cell,
                                  JsonObject         *message)
{
  const char *status = json_object_get_string_member (message, "status");
  const char *reason = json_object_get_string_member_with_default (message, "reason", NULL);
  AssayCellStatus cell_status;

  assay_cell_result_set_elapsed_us (cell->result, g_get_monotonic_time () - cell->sent_at);
  assay_cell_result_set_execution_count (cell->result,
                                         json_object_get_int_member (message, "execution_count"));
  assay_cell_result_set_code_us (cell->result, json_object_get_int_member (message, "code_us"));
  assay_cell_result_set_checks (cell->result, assay_cell_checks_from_json (json_object_get_member (message, "checks")));

  if (g_str_equal (status, "ok"))
    cell_status = ASSAY_CELL_OK;
  else if (g_str_equal (status, "error"))
    cell_status = ASSAY_CELL_ERROR;
  else if (g_str_equal (status, "oom"))
    cell_status = ASSAY_CELL_OOM;
  else if (g_str_equal (status, "limit"))
    cell_status = ASSAY_CELL_LIMIT;
  else /* interrupted */
    cell_status = cell->interrupted ? cell->interrupt_status : ASSAY_CELL_ERROR;

  if (cell_status == ASSAY_CELL_OK && cell->hit_limit)
    {
      cell_status = ASSAY_CELL_LIMIT;
      reason = cell->limit_reason;
    }

  if (reason == NULL || *reason == '\0')
    {
      switch (cell_status)
        {
        case ASSAY_CELL_TIMEOUT:
          reason = _("the cell ran longer than the time limit and was interrupted; the state was kept");
          break;
        case ASSAY_CELL_CANCELLED:
          reason = _("the cell was stopped; the state was kept");
          break;
        case ASSAY_CELL_ERROR:
          reason = _("the code raised an exception");
          break;
        case ASSAY_CELL_LIMIT:
          reason = cell->limit_reason ? cell->limit_reason : _("a limit was reached");
          break;
        case ASSAY_CELL_OOM:
          reason = _("the cell ran out of memory");
          break;
        default:
          break;
        }
    }

  assay_cell_result_set_status (cell->result, cell_status, reason);

  if (cell->task == NULL)
    {
      assay_kernel_session_finish_replay_cell (self, cell_status == ASSAY_CELL_OK);
      return;
    }

  if (cell_status == ASSAY_CELL_OK)
    g_ptr_array_add (self->succeeded, g_strdup (cell->code));

  assay_kernel_session_complete_cell (self);
}

/* Roughly how many bytes an output holds: its strings. */
static guint64
assay_kernel_session_output_cost (JsonObject *output)
{
  guint64 cost = 64;
  JsonNode *data = json_object_get_member (output, "data");
  JsonNode *traceback = json_object_get_member (output, "traceback");

  if (json_object_has_member (output, "text"))
    cost += strlen (json_object_get_string_member (output, "text"));
  if (data != NULL && JSON_NODE_HOLDS_OBJECT (data))
    {
      g_autoptr(GList) members = json_object_get_members (json_node_get_object (data));

      for (const GList *l = members; l != NULL; l = l->next)
        cost += strlen (json_object_get_string_member (json_node_get_object (data), l->data));
    }
  if (traceback != NULL && JSON_NODE_HOLDS_ARRAY (traceback))
    {
      JsonArray *lines = json_node_get_array (traceback);

      for (guint i = 0; i < json_array_get_length (lines); i++)
        cost += strlen (json_array_get_string_element (lines, i));
    }
  return cost;
}

static void
assay_kernel_session_message_cb (AssayKernelChannel *channel,
                                 JsonObject         *message,
                                 gpointer            user_data)
{
  AssayKernelSession *self = user_data;
  const char *type = json_object_get_string_member (message, "type");
  const char *id = json_object_get_string_member_with_default (message, "id", NULL);
  Cell *cell = self->cell;

  if (channel != self->channel)
    return;

  if (g_str_equal (type, "ready"))
    {
      if (self->state == STATE_BOOTING && self->boot_task != NULL)
        {
          g_autoptr(GTask) task = g_steal_pointer (&self->boot_task);

          g_clear_handle_id (&self->boot_timeout_source, g_source_remove);
          self->state = STATE_READY;
          g_task_return_boolean (task, TRUE);
          /* Cells queued while the sandbox started (not during a recovery: replay first). */
          assay_kernel_session_run_next (self);
        }
      return;
    }

  if (g_str_equal (type, "fatal"))
    {
      g_free (self->fatal_reason);
      self->fatal_reason = g_strdup (json_object_get_string_member (message, "reason"));
      return;
    }

  if (g_str_equal (type, "log"))
    {
      g_debug ("kernel: %s", json_object_get_string_member (message, "text"));
      return;
    }

  /* Everything else belongs to the running cell; stale messages are dropped. */
  if (cell == NULL || g_strcmp0 (id, cell->id) != 0)
    return;

  if (g_str_equal (type, "output"))
    {
      JsonObject *output = json_object_get_object_member (message, "output");
      guint64 cost = assay_kernel_session_output_cost (output);
      /* The kernel caps streams and rich output; the host does not rely on it. */
      guint64 budget = self->spec->limits.output_bytes + 80 * (guint64) 1024 * 1024;

      if (cell->task == NULL)
        return;
      if (cell->output_bytes + cost > budget)
        {
          assay_kernel_session_set_limit (cell, "the cell's output was larger than allowed and was cut");
          return;
        }
      /* Streams are joined in the result; every other output is an object of its own. */
      if (g_strcmp0 (json_object_get_string_member_with_default (output, "output_type", ""), "stream") != 0 &&
          ++cell->rich_outputs > MAX_RICH_OUTPUTS)
        {
          assay_kernel_session_set_limit (cell,
                                          "the cell displayed more than 10,000 outputs; the rest were dropped");
          return;
        }
      cell->output_bytes += cost;
      assay_cell_result_add_output (cell->result, output);
      g_signal_emit (self, signals[OUTPUT], 0, cell->id, output);
    }
  else if (g_str_equal (type, "artifact_begin"))
    assay_kernel_session_handle_artifact_begin (self, cell, message);
  else if (g_str_equal (type, "artifact_data"))
    assay_kernel_session_handle_artifact_data (self, cell, message);
  else if (g_str_equal (type, "artifact_end"))
    assay_kernel_session_handle_artifact_end (self, cell, message);
  else if (g_str_equal (type, "done"))
    assay_kernel_session_handle_done (self, cell, message);
}

/* ---- the sandbox dying ---------------------------------------------------------------- */

typedef struct
{
  AssaySandboxInstance *instance;
  AssaySandboxExit      exit_status;
  char                 *stderr_tail;
} Reaping;

static void
assay_kernel_session_reaping_free (Reaping *reaping)
{
  g_clear_object (&reaping->instance);
  g_free (reaping->stderr_tail);
  g_free (reaping);
}

static void
assay_kernel_session_reap_worker (GTask        *task,
                                  gpointer      source_object,
                                  gpointer      task_data,
                                  GCancellable *cancellable)
{
  Reaping *reaping = task_data;
  g_autoptr(GError) error = NULL;

  /* The kernel's stdout closed, so the sandbox is ending or hung: kill to be sure. */
  if (!assay_sandbox_instance_wait (reaping->instance, &reaping->exit_status, NULL, &error))
    g_debug ("waiting for the sandbox failed: %s", error->message);
  reaping->stderr_tail = assay_sandbox_instance_dup_stderr_tail (reaping->instance);
  assay_sandbox_instance_destroy (reaping->instance);
  g_task_return_boolean (task, TRUE);
}

static char *
assay_kernel_session_describe_death (AssayKernelSession *self,
                                     Reaping            *reaping)
{
  if (self->fatal_reason != NULL)
    return g_strdup (self->fatal_reason);
  if (reaping->exit_status.signal > 0)
    return g_strdup_printf (_("the sandbox was killed by signal %d"), reaping->exit_status.signal);
  if (reaping->exit_status.exited)
    {
      g_autofree char *tail = reaping->stderr_tail ? g_strstrip (g_strdup (reaping->stderr_tail)) : NULL;
      const char *last = NULL;

      if (tail != NULL && *tail != '\0')
        last = strrchr (tail, '\n') ? strrchr (tail, '\n') + 1 : tail;
      if (last != NULL)
        return g_strdup_printf (_("the sandbox ended with exit code %d: %s"),
                                reaping->exit_status.exit_code, last);
      return g_strdup_printf (_("the sandbox ended with exit code %d"), reaping->exit_status.exit_code);
    }
  return g_strdup (_("the sandbox ended unexpectedly"));
}

static void
assay_kernel_session_reaped_cb (GObject      *source,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  AssayKernelSession *self = ASSAY_KERNEL_SESSION (source);
  Reaping *reaping = g_task_get_task_data (G_TASK (result));
  Cell *cell = self->cell;
  g_autofree char *death = NULL;

  if (self->state == STATE_CLOSED)
    return;

  if (self->state == STATE_BOOTING && self->boot_task != NULL)
    {
      /* Let the boot fail with whatever the sandbox printed. */
      g_autoptr(GTask) boot_task = g_steal_pointer (&self->boot_task);
      g_autofree char *tail = g_strstrip (g_strdup (reaping->stderr_tail ? reaping->stderr_tail : ""));

      g_clear_handle_id (&self->boot_timeout_source, g_source_remove);
      g_clear_pointer (&self->fatal_reason, g_free);
      self->state = STATE_DEAD;
      g_task_return_new_error (boot_task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               _("the sandbox's kernel did not start (%s %d)%s%s"),
                               reaping->exit_status.signal ? _("signal") : _("exit code"),
                               reaping->exit_status.signal ? reaping->exit_status.signal
                                                           : reaping->exit_status.exit_code,
                               *tail ? ": " : "", tail);
      return;
    }

  death = assay_kernel_session_describe_death (self, reaping);
  g_clear_pointer (&self->fatal_reason, g_free);

  if (cell != NULL && cell->task != NULL)
    {
      g_autofree char *reason = NULL;
      AssayCellStatus status;

      assay_cell_result_set_elapsed_us (cell->result, g_get_monotonic_time () - cell->sent_at);
      if (reaping->exit_status.oom_killed)
        {
          status = ASSAY_CELL_OOM;
          reason = g_strdup (_("the sandbox ran out of memory and was stopped; the session's state was lost"));
        }
      else if (cell->killed)
        {
          status = cell->interrupt_status;
          reason = g_strdup_printf (_("the cell did not stop when interrupted, so the sandbox was killed; "
                                    "the session's state was lost"));
        }
      else
        {
          status = ASSAY_CELL_CRASHED;
          reason = g_strdup_printf (_("%s; the session's state was lost"), death);
        }
      assay_cell_result_set_status (cell->result, status, reason);
      assay_cell_result_set_state_lost (cell->result, TRUE);
      assay_kernel_session_recover (self);
      return;
    }

  if (cell != NULL)
    {
      /* A replayed cell killed the new sandbox too: give up replaying. */
      assay_kernel_session_finish_replay_cell (self, FALSE);
      return;
    }

  /* Died while idle: the next cell starts a fresh sandbox. */
  g_debug ("the sandbox ended while idle: %s", death);
  self->state = STATE_DEAD;
  assay_kernel_session_run_next (self);
}

static void
assay_kernel_session_channel_closed_cb (AssayKernelChannel *channel,
                                        const GError       *error,
                                        gpointer            user_data)
{
  AssayKernelSession *self = user_data;
  g_autoptr(GTask) task = NULL;
  Reaping *reaping;

  if (channel != self->channel || self->state == STATE_CLOSED)
    return;

  if (error != NULL)
    g_debug ("kernel channel closed: %s", error->message);

  g_signal_handlers_disconnect_by_data (self->channel, self);
  g_clear_object (&self->channel);

  if (self->instance == NULL)
    return;

  /* A channel that breaks (protocol violation) means the sandbox is no longer trusted. */
  assay_sandbox_instance_kill (self->instance);

  reaping = g_new0 (Reaping, 1);
  reaping->instance = g_steal_pointer (&self->instance);

  /* While booting, assay_kernel_session_reaped_cb fails the boot instead of recovering. */
  if (self->state != STATE_BOOTING)
    self->state = STATE_RECOVERING;
  task = g_task_new (self, NULL, assay_kernel_session_reaped_cb, NULL);
  g_task_set_source_tag (task, assay_kernel_session_channel_closed_cb);
  g_task_set_task_data (task, reaping, (GDestroyNotify) assay_kernel_session_reaping_free);
  g_task_run_in_thread (task, assay_kernel_session_reap_worker);
}

/* ---- booting -------------------------------------------------------------------------- */

typedef struct
{
  AssaySandboxBackend *backend;
  AssaySandboxSpec    *spec;
  GApplication        *held;   /* the default application, until the launch has come back */
} Launch;

static void
assay_kernel_session_launch_free (Launch *launch)
{
  g_clear_object (&launch->held);   /* released by the callback, on the caller's thread */
  g_clear_object (&launch->backend);
  assay_sandbox_spec_free (launch->spec);
  g_free (launch);
}

static void
assay_kernel_session_launch_worker (GTask        *task,
                                    gpointer      source_object,
                                    gpointer      task_data,
                                    GCancellable *cancellable)
{
  Launch *launch = task_data;
  GError *error = NULL;
  AssaySandboxInstance *instance;

  instance = assay_sandbox_backend_launch (launch->backend, launch->spec, cancellable, &error);
  if (instance == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, instance, g_object_unref);
}

static gboolean
assay_kernel_session_boot_timeout_cb (gpointer user_data)
{
  AssayKernelSession *self = user_data;

  self->boot_timeout_source = 0;
  if (self->instance != NULL)
    assay_sandbox_instance_kill (self->instance);
  return G_SOURCE_REMOVE;
}

static void
assay_kernel_session_launched (AssayKernelSession *self,
                               GAsyncResult       *result,
                               GTask              *boot_task_in)
{
  g_autoptr(GTask) boot_task = boot_task_in;
  g_autoptr(AssaySandboxInstance) instance = NULL;
  GError *error = NULL;

  instance = g_task_propagate_pointer (G_TASK (result), &error);

  if (self->state == STATE_CLOSED)
    {
      if (instance != NULL)
        assay_sandbox_instance_destroy (instance);
      g_clear_error (&error);
      g_task_return_new_error (boot_task, G_IO_ERROR, G_IO_ERROR_CLOSED, _("the session was closed"));
      return;
    }

  if (instance == NULL)
    {
      self->state = STATE_DEAD;
      g_task_return_error (boot_task, error);
      return;
    }

  self->instance = g_steal_pointer (&instance);
  self->boot_task = g_steal_pointer (&boot_task);
  if (self->resuming)
    {
      self->resuming = FALSE;
      self->resumed = assay_sandbox_instance_get_resumed (self->instance);
      g_free (self->resume_note);
      self->resume_note = g_strdup (assay_sandbox_instance_get_resume_note (self->instance));
    }
  self->channel = assay_kernel_channel_new (assay_sandbox_instance_get_stdout (self->instance),
                                            assay_sandbox_instance_get_stdin (self->instance));
  g_signal_connect (self->channel, "message", G_CALLBACK (assay_kernel_session_message_cb), self);
  g_signal_connect (self->channel, "closed", G_CALLBACK (assay_kernel_session_channel_closed_cb), self);
  self->boot_timeout_source = g_timeout_add (BOOT_TIMEOUT_MS, assay_kernel_session_boot_timeout_cb, self);
  assay_kernel_channel_start (self->channel);
}

static void
assay_kernel_session_launched_cb (GObject      *source,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  Launch *launch = g_task_get_task_data (G_TASK (result));
  g_autoptr(GApplication) held = g_steal_pointer (&launch->held);

  assay_kernel_session_launched (ASSAY_KERNEL_SESSION (source), result, user_data);
  /* A sandbox launched for a session closed meanwhile has been removed by now: the
   * application did not end while the launch was in flight and leave it behind. */
  if (held != NULL)
    g_application_release (held);
}

/* Starts a sandbox; TASK completes when the kernel says it is ready. */
static void
assay_kernel_session_boot (AssayKernelSession *self,
                           GTask              *task)
{
  g_autoptr(GTask) launch_task = NULL;
  Launch *launch;

  g_assert (self->boot_task == NULL);
  self->state = STATE_BOOTING;

  launch = g_new0 (Launch, 1);
  launch->backend = g_object_ref (self->backend);
  launch->spec = assay_sandbox_spec_copy (self->spec);
  launch->held = g_application_get_default ();
  if (launch->held != NULL)
    {
      g_object_ref (launch->held);
      g_application_hold (launch->held);
    }
  /* Only the first sandbox resumes the one kept for later; a restart starts a new one. */
  self->resuming = self->spec->resume_id != NULL;
  g_clear_pointer (&self->spec->resume_id, g_free);

  launch_task = g_task_new (self,
                            g_task_get_cancellable (task),
                            assay_kernel_session_launched_cb,
                            g_object_ref (task));
  g_task_set_source_tag (launch_task, assay_kernel_session_boot);
  g_task_set_task_data (launch_task, launch, (GDestroyNotify) assay_kernel_session_launch_free);
  g_task_run_in_thread (launch_task, assay_kernel_session_launch_worker);
}

/* ---- recovery and replay -------------------------------------------------------------- */

static void
assay_kernel_session_replay_next (AssayKernelSession *self)
{
  Cell *cell;

  if (self->replay_index >= self->succeeded->len)
    {
      /* Done: hand back the cell that caused the restart. */
      Cell *failed = g_steal_pointer (&self->parked);

      self->cell = failed;
      if (failed != NULL)
        assay_cell_result_set_replayed (failed->result, self->replayed);
      self->state = self->channel != NULL ? STATE_READY : STATE_DEAD;
      g_signal_emit (self, signals[RESTARTED], 0, self->replayed, !self->replay_failed);
      assay_kernel_session_complete_cell (self);
      return;
    }

  cell = g_new0 (Cell, 1);
  cell->artifact_fd = -1;
  cell->artifact_seq = -1;
  cell->id = g_strdup_printf ("r%u", self->replay_index + 1);
  cell->code = g_strdup (g_ptr_array_index (self->succeeded, self->replay_index));
  cell->result = assay_cell_result_new (cell->id, cell->code);
  self->cell = cell;
  self->state = STATE_RUNNING;
  assay_kernel_session_send_cell (self, cell);
}

static void
assay_kernel_session_finish_replay_cell (AssayKernelSession *self,
                                         gboolean            ok)
{
  Cell *cell = g_steal_pointer (&self->cell);

  assay_kernel_session_cell_free (cell);
  if (ok)
    {
      self->replayed++;
      self->replay_index++;
    }
  else
    {
      /* Keep only what was restored: the rest cannot be trusted to have run. */
      self->replay_failed = TRUE;
      g_ptr_array_set_size (self->succeeded, self->replay_index);
    }

  if (self->channel == NULL)
    {
      /* The sandbox died during the replay: start another without replaying again. */
      self->state = STATE_DEAD;
      self->replay_index = self->succeeded->len;
      assay_kernel_session_replay_next (self);
      return;
    }

  if (!ok)
    self->replay_index = self->succeeded->len;
  assay_kernel_session_replay_next (self);
}

static void
assay_kernel_session_recovered_cb (GObject      *source,
                                   GAsyncResult *result,
                                   gpointer      user_data)
{
  AssayKernelSession *self = ASSAY_KERNEL_SESSION (source);
  g_autoptr(GError) error = NULL;
  Cell *failed = self->parked;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (self->state == STATE_CLOSED)
        return;
      if (failed != NULL)
        {
          g_autofree char *reason =
            g_strdup_printf (_("%s; a new sandbox could not be started: %s"),
                             assay_cell_result_get_reason (failed->result), error->message);
          assay_cell_result_set_status (failed->result,
                                        assay_cell_result_get_status (failed->result), reason);
        }
      self->state = STATE_DEAD;
      self->replay_index = self->succeeded->len;
      assay_kernel_session_replay_next (self);
      return;
    }

  self->replayed = 0;
  self->replay_failed = FALSE;
  self->replay_index = self->replay_on_restart ? 0 : self->succeeded->len;
  if (!self->replay_on_restart)
    g_ptr_array_set_size (self->succeeded, 0);
  assay_kernel_session_replay_next (self);
}

static void
assay_kernel_session_recover (AssayKernelSession *self)
{
  g_autoptr(GTask) task = NULL;

  /* Park the failed cell while a new sandbox starts and the state is replayed. It is over:
   * its timeout and grace period must not fire on the cells that replay. */
  g_assert (self->parked == NULL);
  self->parked = g_steal_pointer (&self->cell);
  g_clear_handle_id (&self->parked->timeout_source, g_source_remove);
  g_clear_handle_id (&self->parked->grace_source, g_source_remove);

  task = g_task_new (self, NULL, assay_kernel_session_recovered_cb, NULL);
  g_task_set_source_tag (task, assay_kernel_session_recover);
  assay_kernel_session_boot (self, task);
}

/* ---- running cells -------------------------------------------------------------------- */

static void
assay_kernel_session_send_cell (AssayKernelSession *self,
                                Cell               *cell)
{
  g_autoptr(JsonObject) message = json_object_new ();
  JsonObject *limits = json_object_new ();

  json_object_set_string_member (message, "type", "execute");
  json_object_set_string_member (message, "id", cell->id);
  json_object_set_string_member (message, "code", cell->code);
  json_object_set_int_member (limits, "output_bytes", self->spec->limits.output_bytes);
  json_object_set_int_member (limits, "artifact_bytes", self->spec->limits.artifact_bytes);
  json_object_set_int_member (limits, "artifacts", self->spec->limits.artifacts);
  json_object_set_object_member (message, "limits", limits);
  json_object_set_boolean_member (message, "checks", !self->no_checks);

  cell->sent_at = g_get_monotonic_time ();
  assay_kernel_channel_send (self->channel, message);

  if (self->spec->limits.timeout_ms > 0)
    cell->timeout_source = g_timeout_add (self->spec->limits.timeout_ms,
                                          assay_kernel_session_timeout_cb,
                                          self);
}

static void
assay_kernel_session_booted_for_cell_cb (GObject      *source,
                                         GAsyncResult *result,
                                         gpointer      user_data)
{
  AssayKernelSession *self = ASSAY_KERNEL_SESSION (source);
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      /* The waiting cells cannot run: fail them all with the reason. */
      GTask *waiting;

      while ((waiting = g_queue_pop_head (&self->waiting)))
        {
          g_task_return_new_error (waiting, G_IO_ERROR, G_IO_ERROR_FAILED,
                                   _("the sandbox could not be started: %s"), error->message);
          g_object_unref (waiting);
        }
      return;
    }

  assay_kernel_session_run_next (self);
}

static void
assay_kernel_session_run_next (AssayKernelSession *self)
{
  g_autoptr(GTask) task = NULL;
  Cell *cell;

  if (self->cell != NULL || self->parked != NULL || g_queue_is_empty (&self->waiting))
    return;

  if (self->state == STATE_NEW || self->state == STATE_DEAD)
    {
      g_autoptr(GTask) boot_task = g_task_new (self, NULL, assay_kernel_session_booted_for_cell_cb, NULL);
      g_task_set_source_tag (boot_task, assay_kernel_session_run_next);
      assay_kernel_session_boot (self, boot_task);
      return;
    }

  if (self->state != STATE_READY)
    return;

  task = g_queue_pop_head (&self->waiting);

  /* Cancelled while it waited (for the sandbox to start, say): it never runs. */
  if (g_task_get_cancellable (task) != NULL && g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      g_autofree char *id = g_strdup_printf ("c%u", ++self->cell_counter);
      g_autoptr(AssayCellResult) result = assay_cell_result_new (id, g_task_get_task_data (task));

      assay_cell_result_set_status (result, ASSAY_CELL_CANCELLED, _("cancelled before it started"));
      g_task_return_pointer (task, g_steal_pointer (&result), g_object_unref);
      g_clear_object (&task);
      assay_kernel_session_run_next (self);
      return;
    }

  cell = g_new0 (Cell, 1);
  cell->artifact_fd = -1;
  cell->artifact_seq = -1;
  cell->task = g_steal_pointer (&task);
  cell->id = g_strdup_printf ("c%u", ++self->cell_counter);
  cell->code = g_strdup (g_task_get_task_data (cell->task));
  cell->result = assay_cell_result_new (cell->id, cell->code);

  self->cell = cell;
  self->state = STATE_RUNNING;
  assay_kernel_session_send_cell (self, cell);

  /* Connected once the cell is sent: a cancellation that comes in between (the handler then
   * runs at once) interrupts a cell that exists. */
  if (g_task_get_cancellable (cell->task) != NULL && self->cell == cell)
    {
      cell->cancellable = g_object_ref (g_task_get_cancellable (cell->task));
      cell->cancel_handler = g_cancellable_connect (cell->cancellable,
                                                    G_CALLBACK (assay_kernel_session_cell_cancelled_cb),
                                                    cell->task, NULL);
    }
}

/* ---- GObject -------------------------------------------------------------------------- */

static void
assay_kernel_session_dispose (GObject *object)
{
  AssayKernelSession *self = ASSAY_KERNEL_SESSION (object);

  assay_kernel_session_close (self);
  g_clear_object (&self->backend);

  G_OBJECT_CLASS (assay_kernel_session_parent_class)->dispose (object);
}

static void
assay_kernel_session_finalize (GObject *object)
{
  AssayKernelSession *self = ASSAY_KERNEL_SESSION (object);

  assay_sandbox_spec_free (self->spec);
  g_free (self->artifact_dir);
  g_free (self->fatal_reason);
  g_free (self->resume_note);
  g_clear_pointer (&self->succeeded, g_ptr_array_unref);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (assay_kernel_session_parent_class)->finalize (object);
}

static void
assay_kernel_session_class_init (AssayKernelSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = assay_kernel_session_dispose;
  object_class->finalize = assay_kernel_session_finalize;

  /**
   * AssayKernelSession::output:
   * @cell_id: the cell
   * @output: an nbformat v4 output object, already validated
   *
   * Emitted while a cell runs, as each output arrives.
   */
  signals[OUTPUT] =
    g_signal_new ("output",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, JSON_TYPE_OBJECT);

  /**
   * AssayKernelSession::restarted:
   * @replayed: how many cells were run again
   * @restored: whether the whole state was restored
   */
  signals[RESTARTED] =
    g_signal_new ("restarted",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_BOOLEAN);
}

static void
assay_kernel_session_init (AssayKernelSession *self)
{
  self->stage_lock_fd = -1;
  self->succeeded = g_ptr_array_new_with_free_func (g_free);
  self->context = g_main_context_ref_thread_default ();
  g_queue_init (&self->waiting);
}

static char *
assay_kernel_session_new_session_id (void)
{
  g_autofree char *uuid = g_uuid_string_random ();

  return g_strndup (uuid, 8);
}

/* The folder mounted at /data holds links (or copies) of the datasets. The sandbox reads its
 * path in /proc/self/mountinfo (a bind mount shows the folder it came from), and so can the
 * model: it must not be in the home or the cache, whose paths name the user. Each session
 * stages its data in a folder of its own under /var/tmp, on the system's file system (where a
 * link still costs nothing), locked while in use so that what a crash left is swept later. */
#define STAGE_PARENT "/var/tmp"
#define STAGE_PREFIX "assay-"

static void assay_kernel_session_remove_data_dir (const char *data_dir);

/* The lock first (a sweeper then skips the folder), then the data and the folder itself. */
static void
assay_kernel_session_remove_stage (const char *stage)
{
  g_autofree char *data = g_build_filename (stage, "data", NULL);
  g_autofree char *lock = g_build_filename (stage, "lock", NULL);

  g_unlink (lock);
  assay_kernel_session_remove_data_dir (data);
}

/* Folders of ours whose lock nobody holds: their session ended without cleaning up. */
static void
assay_kernel_session_sweep_stages (void)
{
  g_autoptr(GDir) dir = g_dir_open (STAGE_PARENT, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)))
    {
      g_autofree char *stage = NULL;
      g_autofree char *lock = NULL;
      GStatBuf st;
      int fd;

      if (!g_str_has_prefix (name, STAGE_PREFIX) || strlen (name) != strlen (STAGE_PREFIX) + 6)
        continue;
      stage = g_build_filename (STAGE_PARENT, name, NULL);
      if (g_lstat (stage, &st) != 0 || !S_ISDIR (st.st_mode) || st.st_uid != geteuid ())
        continue;
      lock = g_build_filename (stage, "lock", NULL);
      fd = open (lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        continue;
      if (flock (fd, LOCK_EX | LOCK_NB) == 0)
        assay_kernel_session_remove_stage (stage);
      close (fd);
    }
}

static char *
assay_kernel_session_make_stage (int *lock_fd)
{
  static gsize swept = 0;
  g_autofree char *stage = g_build_filename (STAGE_PARENT, STAGE_PREFIX "XXXXXX", NULL);
  g_autofree char *lock = NULL;
  int fd;

  /* Inside Flatpak /var/tmp is the app's own folder, which a host engine cannot see under that
   * name; the cache folder is the same path on both sides. */
  if (g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    return NULL;

  if (g_once_init_enter (&swept))
    {
      assay_kernel_session_sweep_stages ();
      g_once_init_leave (&swept, 1);
    }

  /* As root the sandbox's user (nobody) must pass through; nobody else can list it. */
  if (g_mkdtemp_full (stage, geteuid () == 0 ? 0711 : 0700) == NULL)
    {
      g_warning ("Cannot make a data folder in %s: %s", STAGE_PARENT, g_strerror (errno));
      return NULL;
    }
  lock = g_build_filename (stage, "lock", NULL);
  fd = open (lock, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 || flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      g_warning ("Cannot lock the data folder %s: %s", stage, g_strerror (errno));
      if (fd >= 0)
        close (fd);
      g_unlink (lock);
      g_rmdir (stage);
      return NULL;
    }
  *lock_fd = fd;
  return g_steal_pointer (&stage);
}

AssayKernelSession *
assay_kernel_session_new (AssaySandboxBackend    *backend,
                          const AssaySandboxSpec *spec,
                          const char             *artifact_dir)
{
  AssayKernelSession *self;
  g_autofree char *base = NULL;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_BACKEND (backend), NULL);
  g_return_val_if_fail (spec != NULL, NULL);

  self = g_object_new (ASSAY_TYPE_KERNEL_SESSION, NULL);
  self->backend = g_object_ref (backend);
  self->spec = assay_sandbox_spec_copy (spec);
  if (self->spec->session_id == NULL)
    self->spec->session_id = assay_kernel_session_new_session_id ();

  /* As root, bubblewrap runs as nobody, who must be able to reach the data folder. */
  if (geteuid () == 0)
    base = g_build_filename ("/var/cache/assay/sessions", self->spec->session_id, NULL);
  else
    base = g_build_filename (g_get_user_cache_dir (), "assay", "sessions",
                             self->spec->session_id, NULL);
  if (self->spec->data_dir == NULL)
    {
      g_autofree char *stage = assay_kernel_session_make_stage (&self->stage_lock_fd);

      self->spec->data_dir = g_build_filename (stage != NULL ? stage : base, "data", NULL);
      self->owns_data_dir = TRUE;
    }
  self->artifact_dir = artifact_dir ? g_strdup (artifact_dir)
                                    : g_build_filename (base, "artifacts", NULL);

  g_mkdir_with_parents (self->spec->data_dir, 0755);
  g_chmod (self->spec->data_dir, 0755);
  g_mkdir_with_parents (self->artifact_dir, 0755);
  return self;
}

const char *
assay_kernel_session_get_id (AssayKernelSession *self)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), NULL);
  return self->spec->session_id;
}

void
assay_kernel_session_set_checks (AssayKernelSession *self,
                                 gboolean            enabled)
{
  g_return_if_fail (ASSAY_IS_KERNEL_SESSION (self));
  self->no_checks = !enabled;
}

AssaySandboxBackend *
assay_kernel_session_get_backend (AssayKernelSession *self)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), NULL);
  return self->backend;
}

gboolean
assay_kernel_session_set_resume_id (AssayKernelSession *self,
                                    const char         *resume_id)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), FALSE);

  if (self->state != STATE_NEW)
    return FALSE;
  g_free (self->spec->resume_id);
  self->spec->resume_id = g_strdup (resume_id);
  return TRUE;
}

const char *
assay_kernel_session_get_resume_id (AssayKernelSession *self)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), NULL);
  return self->state == STATE_NEW ? self->spec->resume_id : NULL;
}

gboolean
assay_kernel_session_get_resumed (AssayKernelSession *self)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), FALSE);
  return self->resumed;
}

const char *
assay_kernel_session_get_resume_note (AssayKernelSession *self)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), NULL);
  return self->resume_note;
}

void
assay_kernel_session_set_keep_on_close (AssayKernelSession *self,
                                        gboolean            keep)
{
  g_return_if_fail (ASSAY_IS_KERNEL_SESSION (self));
  self->keep_on_close = !!keep;
}

char *
assay_kernel_session_dup_resume_id (AssayKernelSession *self)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), NULL);

  /* Only an idle sandbox is kept: one busy with a cell is ended at close. */
  if (self->instance == NULL || self->state != STATE_READY || self->cell != NULL || self->parked != NULL)
    return NULL;
  return assay_sandbox_instance_dup_resume_id (self->instance);
}

const char *
assay_kernel_session_get_data_dir (AssayKernelSession *self)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), NULL);
  return self->spec->data_dir;
}

const char *
assay_kernel_session_get_artifact_dir (AssayKernelSession *self)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), NULL);
  return self->artifact_dir;
}

void
assay_kernel_session_set_artifact_dir (AssayKernelSession *self,
                                       const char         *artifact_dir)
{
  g_return_if_fail (ASSAY_IS_KERNEL_SESSION (self));
  g_return_if_fail (artifact_dir != NULL);

  g_free (self->artifact_dir);
  self->artifact_dir = g_strdup (artifact_dir);
  g_mkdir_with_parents (self->artifact_dir, 0755);
}

void
assay_kernel_session_set_replay_on_restart (AssayKernelSession *self,
                                            gboolean            replay)
{
  g_return_if_fail (ASSAY_IS_KERNEL_SESSION (self));
  self->replay_on_restart = !!replay;
}

gboolean
assay_kernel_session_get_replay_on_restart (AssayKernelSession *self)
{
  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), FALSE);
  return self->replay_on_restart;
}

static gboolean
assay_kernel_session_chmod_no_follow (const char  *path,
                                      mode_t       mode,
                                      GError     **error)
{
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  int saved;

  if (fd >= 0 && fchmod (fd, mode) == 0)
    {
      close (fd);
      return TRUE;
    }
  saved = errno;
  if (fd >= 0)
    close (fd);
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
               _("Cannot make %s readable for the sandbox: %s"), path, g_strerror (saved));
  return FALSE;
}

/* A file added to the data folder while the sandbox runs reaches a sandbox that does not see
 * the folder (an engine elsewhere). */
static gboolean
assay_kernel_session_send_file (AssayKernelSession  *self,
                                const char          *name,
                                GError             **error)
{
  if (self->instance == NULL)
    return TRUE;
  return assay_sandbox_instance_add_file (self->instance, name, error);
}

static gboolean assay_kernel_session_place_dataset (AssayKernelSession  *self,
                                                    const char          *path,
                                                    char               **placed,
                                                    GError             **error);

gboolean
assay_kernel_session_add_dataset (AssayKernelSession  *self,
                                  const char          *path,
                                  GError             **error)
{
  g_autofree char *placed = NULL;

  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  return assay_kernel_session_place_dataset (self, path, &placed, error) &&
         assay_kernel_session_send_file (self, placed, error);
}

static gboolean
assay_kernel_session_place_dataset (AssayKernelSession  *self,
                                    const char          *path,
                                    char               **placed,
                                    GError             **error)
{
  g_autoptr(GFile) source = NULL;
  g_autoptr(GFile) target = NULL;
  g_autofree char *name = NULL;
  g_autofree char *clean = NULL;
  g_autofree char *target_path = NULL;
  g_autofree char *real = NULL;
  GStatBuf st;

  /* A symbolic link stands for the file it names: that file is linked or copied, never the
   * link itself (it would dangle under /data), and nothing below ever acts through a link
   * (a chmod through one would open the analyst's private file to everyone). */
  real = realpath (path, NULL);
  if (real == NULL || g_lstat (real, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("“%s” is not a readable file"), path);
      return FALSE;
    }

  name = g_path_get_basename (path);
  clean = assay_kernel_session_sanitize_component (name);
  target_path = g_build_filename (self->spec->data_dir, clean, NULL);
  *placed = g_strdup (clean);
  g_unlink (target_path);

  /* A hard link costs nothing, but the sandbox's user must be able to read the file;
   * otherwise (or across file systems) copy it with permissions the sandbox can read. */
  if ((st.st_mode & 0004) != 0 && link (real, target_path) == 0)
    return TRUE;

  source = g_file_new_for_path (real);
  target = g_file_new_for_path (target_path);
  if (!g_file_copy (source, target, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS,
                    NULL, NULL, NULL, error))
    return FALSE;
  return assay_kernel_session_chmod_no_follow (target_path, 0644, error);
}

gboolean
assay_kernel_session_add_hidden_file (AssayKernelSession  *self,
                                      const char          *path,
                                      const char          *name,
                                      GError             **error)
{
  g_autofree char *target_path = NULL;
  g_autoptr(GFile) source = NULL;
  g_autoptr(GFile) target = NULL;
  GStatBuf st;

  g_return_val_if_fail (ASSAY_IS_KERNEL_SESSION (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (name != NULL && name[0] == '.' && strchr (name, '/') == NULL &&
                        !g_str_equal (name, ".") && !g_str_equal (name, ".."), FALSE);

  if (g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, _("“%s” is not a readable file"), path);
      return FALSE;
    }
  target_path = g_build_filename (self->spec->data_dir, name, NULL);
  g_unlink (target_path);
  if ((st.st_mode & 0004) != 0 && link (path, target_path) == 0)
    return assay_kernel_session_send_file (self, name, error);
  source = g_file_new_for_path (path);
  target = g_file_new_for_path (target_path);
  if (!g_file_copy (source, target, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL, NULL, NULL, error))
    return FALSE;
  return assay_kernel_session_chmod_no_follow (target_path, 0644, error) &&
         assay_kernel_session_send_file (self, name, error);
}

static void
assay_kernel_session_started_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
assay_kernel_session_start_async (AssayKernelSession  *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) boot_task = NULL;

  g_return_if_fail (ASSAY_IS_KERNEL_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_kernel_session_start_async);

  if (self->state == STATE_READY || self->state == STATE_RUNNING)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (self->state != STATE_NEW && self->state != STATE_DEAD)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY, _("the session is busy"));
      return;
    }

  boot_task = g_task_new (self, cancellable, assay_kernel_session_started_cb, g_steal_pointer (&task));
  assay_kernel_session_boot (self, boot_task);
}

gboolean
assay_kernel_session_start_finish (AssayKernelSession  *self,
                                   GAsyncResult        *result,
                                   GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
assay_kernel_session_execute_async (AssayKernelSession  *self,
                                    const char          *code,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_KERNEL_SESSION (self));
  g_return_if_fail (code != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_kernel_session_execute_async);
  /* The result carries the cancellation as a status, not as an error. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, g_strdup (code), g_free);

  if (self->state == STATE_CLOSED)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED, _("the session was closed"));
      return;
    }

  g_queue_push_tail (&self->waiting, g_steal_pointer (&task));
  assay_kernel_session_run_next (self);
}

AssayCellResult *
assay_kernel_session_execute_finish (AssayKernelSession  *self,
                                     GAsyncResult        *result,
                                     GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The data folder holds only links or copies of the datasets, made by us: remove it and
 * the session's folder above it when that is empty. */
static void
assay_kernel_session_remove_data_dir (const char *data_dir)
{
  g_autoptr(GDir) dir = g_dir_open (data_dir, 0, NULL);
  g_autofree char *parent = g_path_get_dirname (data_dir);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)))
    {
      g_autofree char *path = g_build_filename (data_dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (data_dir);
  g_rmdir (parent);
}

typedef struct
{
  AssaySandboxInstance *instance;
  char                 *data_dir;   /* to remove once the sandbox is gone, or NULL */
  int                   lock_fd;    /* the lock of its stage folder, or -1 */
  gboolean              keep;       /* suspend the sandbox rather than remove it */
} Teardown;

static void
assay_kernel_session_teardown_free (Teardown *teardown)
{
  g_clear_object (&teardown->instance);
  g_free (teardown->data_dir);
  if (teardown->lock_fd >= 0)
    close (teardown->lock_fd);
  g_free (teardown);
}

static void
assay_kernel_session_teardown_run (Teardown *teardown)
{
  if (teardown->instance != NULL && teardown->keep)
    {
      g_autoptr(GError) error = NULL;

      if (!assay_sandbox_instance_suspend (teardown->instance, &error))
        {
          g_message ("The sandbox could not be kept for later, so it is ended: %s", error->message);
          assay_sandbox_instance_destroy (teardown->instance);
        }
    }
  else if (teardown->instance != NULL)
    assay_sandbox_instance_destroy (teardown->instance);
  if (teardown->data_dir != NULL && teardown->lock_fd >= 0)
    {
      g_autofree char *stage = g_path_get_dirname (teardown->data_dir);

      assay_kernel_session_remove_stage (stage);
      close (teardown->lock_fd);
      teardown->lock_fd = -1;
    }
  else if (teardown->data_dir != NULL)
    assay_kernel_session_remove_data_dir (teardown->data_dir);
}

static void
assay_kernel_session_teardown_worker (GTask        *task,
                                      gpointer      source_object,
                                      gpointer      task_data,
                                      GCancellable *cancellable)
{
  assay_kernel_session_teardown_run (task_data);
  g_task_return_boolean (task, TRUE);
}

/* Everything close does on the session's own thread: the channel, the cells waiting. What
 * takes time (the sandbox's end, removing its files) is handed back to run. */
static Teardown *
assay_kernel_session_close_begin (AssayKernelSession *self)
{
  Teardown *teardown = g_new0 (Teardown, 1);
  GTask *waiting;

  teardown->lock_fd = -1;

  self->state = STATE_CLOSED;

  g_clear_handle_id (&self->boot_timeout_source, g_source_remove);

  if (self->channel != NULL)
    {
      g_autoptr(JsonObject) message = json_object_new ();

      json_object_set_string_member (message, "type", "shutdown");
      assay_kernel_channel_send (self->channel, message);
      g_signal_handlers_disconnect_by_data (self->channel, self);
      assay_kernel_channel_stop (self->channel);
      g_clear_object (&self->channel);
    }

  /* A sandbox is kept only between cells: one busy or booting is ended. */
  teardown->keep = self->keep_on_close && self->cell == NULL && self->parked == NULL && self->boot_task == NULL;
  teardown->instance = g_steal_pointer (&self->instance);

  if (self->cell != NULL)
    {
      Cell *cell = g_steal_pointer (&self->cell);

      if (cell->task != NULL)
        g_task_return_new_error (cell->task, G_IO_ERROR, G_IO_ERROR_CLOSED,
                                 _("the session was closed"));
      assay_kernel_session_cell_free (cell);
    }
  if (self->parked != NULL)
    {
      Cell *cell = g_steal_pointer (&self->parked);

      if (cell->task != NULL)
        g_task_return_new_error (cell->task, G_IO_ERROR, G_IO_ERROR_CLOSED,
                                 _("the session was closed"));
      assay_kernel_session_cell_free (cell);
    }

  if (self->boot_task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->boot_task);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED, _("the session was closed"));
    }

  while ((waiting = g_queue_pop_head (&self->waiting)))
    {
      g_task_return_new_error (waiting, G_IO_ERROR, G_IO_ERROR_CLOSED, _("the session was closed"));
      g_object_unref (waiting);
    }

  if (self->owns_data_dir)
    {
      teardown->data_dir = g_strdup (self->spec->data_dir);
      teardown->lock_fd = self->stage_lock_fd;
      self->stage_lock_fd = -1;
    }
  return teardown;
}

void
assay_kernel_session_close (AssayKernelSession *self)
{
  Teardown *teardown;

  g_return_if_fail (ASSAY_IS_KERNEL_SESSION (self));

  if (self->state == STATE_CLOSED)
    return;
  teardown = assay_kernel_session_close_begin (self);
  assay_kernel_session_teardown_run (teardown);
  assay_kernel_session_teardown_free (teardown);
}

void
assay_kernel_session_close_async (AssayKernelSession  *self,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_KERNEL_SESSION (self));

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, assay_kernel_session_close_async);
  if (self->state == STATE_CLOSED)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_task_set_task_data (task,
                        assay_kernel_session_close_begin (self),
                        (GDestroyNotify) assay_kernel_session_teardown_free);
  g_task_run_in_thread (task, assay_kernel_session_teardown_worker);
}

gboolean
assay_kernel_session_close_finish (AssayKernelSession  *self,
                                   GAsyncResult        *result,
                                   GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
