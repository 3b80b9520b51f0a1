/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Session"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assay-kernel-session.h"
#include "assay-sqlite-file.h"
#include "assay-session.h"
#include "assay-approval.h"
#include "assay-session-path.h"
#include "assay-usage.h"
#include "assay-data-text.h"
#include "assay-json.h"
#include "assay-session-outline.h"
#include "assay-source.h"
#include "assay-source-url.h"

struct _AssaySession
{
  GObject    parent_instance;

  char      *dir;
  char      *id;
  char      *title;
  char      *provider;
  char      *sandbox;             /* the backend the cells ran on ("docker", "bwrap"), or NULL */
  char      *sandbox_where;       /* "Docker 28.2.2 at /var/run/docker.sock", or NULL */
  char      *sandbox_resume_id;   /* the sandbox kept for later (E2B: paused), or NULL */
  char      *model;
  char      *status;
  char      *answer;
  gint64     created_at;
  gint64     updated_at;

  GPtrArray *datasets;            /* AssaySessionDataset* */
  GPtrArray *messages;            /* AssayLlmMessage* */
  GPtrArray *cells;               /* AssaySessionCell* */
  GPtrArray *interrupted_cells;   /* AssaySessionCell*, from steps that never finished */
  GArray    *timings;             /* AssayStepTiming, one per finished step */
  GHashTable *provenance;         /* message index → AssayProvenance*, for answers */
  GHashTable *measured;           /* data/ path → FileIdentity*, from copy_in, for add_dataset */
  char      *rerun_of;            /* the folder of the session this one ran again, or NULL */
  char      *rerun_of_title;      /* its title then, or NULL */
  GPtrArray *requests;            /* AssaySessionRequest* */
  AssayPrivacyMode privacy_mode;
  GPtrArray *masked;              /* AssaySessionMask* */
  GPtrArray *sources;             /* AssaySessionSource*: the databases it queried */
  gint64     requests_bytes;      /* of the compressed bodies kept; -1: not counted yet */
  GPtrArray *reruns;              /* char*: the folders of the sessions that ran this one again */
  GPtrArray *changes;             /* AssaySessionChange*: what changed since rerun_of */
  GPtrArray *rerun_notes;         /* char*: what the run again said of its data */
  char      *rewrite;             /* the summary the model rewrote, or NULL */
  guint      cell_id_floor;       /* next_cell_id gives numbers above it (not kept) */

  /* What the finished steps cover; beyond these is the step in progress. */
  guint      n_steps;
  guint      finished_messages;
  guint      finished_cells;

  /* Saves land in the order they were asked for: each takes a number on the owner's thread
   * and the record is only replaced by a newer one (save_async writes from a worker). */
  guint64    save_serial;         /* the owner's thread */
  GMutex     save_lock;
  guint64    written_serial;      /* under save_lock */
};

static gboolean assay_session_resume_id_is_valid (const char *id);

G_DEFINE_FINAL_TYPE (AssaySession, assay_session, G_TYPE_OBJECT)

/* What a dataset's file is: its hash, size, rows (delimited text) and modification time. */
typedef struct
{
  char    sha256[65];
  gint64  bytes;
  gint64  rows;
  gint64  mtime_us;
} FileIdentity;

/* Reads PATH once: SHA-256, size, and the rows of a delimited text file. Touches nothing but the file, so a worker may call it. */
static gboolean
assay_session_measure_file (const char    *path,
                            GCancellable  *cancellable,
                            FileIdentity  *identity,
                            GError       **error)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree guchar *buffer = g_malloc (256 * 1024);
  gboolean text = assay_data_counts_rows (path);
  AssayRowCounter counter;
  gint64 bytes = 0;
  struct stat st;
  ssize_t n;
  int fd;

  assay_row_counter_init (&counter);
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      int saved = fd < 0 ? errno : EINVAL;

      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot read %s: %s"), path,
                   g_strerror (saved));
      return FALSE;
    }
  while ((n = read (fd, buffer, 256 * 1024)) != 0)
    {
      if (n < 0)
        {
          int saved = errno;

          if (saved == EINTR)
            continue;
          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot read %s: %s"), path,
                       g_strerror (saved));
          return FALSE;
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          close (fd);
          return FALSE;
        }
      g_checksum_update (checksum, buffer, n);
      bytes += n;
      if (text)
        assay_row_counter_feed (&counter, buffer, (gsize) n);
    }
  close (fd);
  g_strlcpy (identity->sha256, g_checksum_get_string (checksum), sizeof identity->sha256);
  identity->bytes = bytes;
  identity->rows = text ? assay_row_counter_finish (&counter) : -1;
  identity->mtime_us = (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000;
  return TRUE;
}

static void
assay_session_dataset_set_identity (AssaySessionDataset *dataset,
                                    const FileIdentity  *identity)
{
  g_free (dataset->sha256);
  dataset->sha256 = g_strdup (identity->sha256);
  dataset->bytes = identity->bytes;
  dataset->rows = identity->rows;
  dataset->mtime_us = identity->mtime_us;
  dataset->changed = FALSE;
}

/* On load: whether DATASET's copy is still what was added. The size and modification time
 * tell most changes at no cost; only then is the file hashed. */
static void
assay_session_dataset_check (AssaySessionDataset *dataset,
                             const char          *dir)
{
  g_autofree char *path = g_build_filename (dir, dataset->path, NULL);
  FileIdentity identity;
  struct stat st;

  if (dataset->sha256 == NULL)
    return;
  if (lstat (path, &st) != 0 || !S_ISREG (st.st_mode))
    {
      dataset->changed = TRUE;
      return;
    }
  if (st.st_size == dataset->bytes &&
      (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000 == dataset->mtime_us)
    return;
  if (!assay_session_measure_file (path, NULL, &identity, NULL))
    dataset->changed = TRUE;
  else
    dataset->changed = g_ascii_strcasecmp (identity.sha256, dataset->sha256) != 0;
}

static void
assay_session_request_free (gpointer data)
{
  AssaySessionRequest *request = data;

  g_free (request->host);
  g_free (request->model);
  g_free (request->sha256);
  g_free (request->file);
  g_free (request->mode);
  g_free (request);
}

static void
assay_session_mask_free (gpointer data)
{
  AssaySessionMask *mask = data;

  g_free (mask->dataset);
  g_free (mask->column);
  g_free (mask);
}

static void
assay_session_source_free (gpointer data)
{
  AssaySessionSource *source = data;

  g_free (source->name);
  g_free (source->kind);
  g_free (source->url);
  g_strfreev (source->tables);
  g_free (source->description);
  g_free (source->accepted_risk);
  g_free (source->risk_seal);
  g_free (source);
}

static void
assay_session_dataset_free (gpointer data)
{
  AssaySessionDataset *dataset = data;

  g_free (dataset->name);
  g_free (dataset->path);
  g_free (dataset->description);
  g_free (dataset->sha256);
  g_free (dataset);
}

static void
assay_session_finalize (GObject *object)
{
  AssaySession *self = ASSAY_SESSION (object);

  g_free (self->dir);
  g_free (self->id);
  g_free (self->title);
  g_free (self->provider);
  g_free (self->sandbox);
  g_free (self->sandbox_where);
  g_free (self->sandbox_resume_id);
  g_free (self->model);
  g_free (self->status);
  g_free (self->answer);
  g_ptr_array_unref (self->datasets);
  g_ptr_array_unref (self->messages);
  g_ptr_array_unref (self->cells);
  g_ptr_array_unref (self->interrupted_cells);
  g_array_unref (self->timings);
  g_hash_table_unref (self->provenance);
  g_hash_table_unref (self->measured);
  g_free (self->rerun_of);
  g_free (self->rerun_of_title);
  g_ptr_array_unref (self->reruns);
  g_ptr_array_unref (self->changes);
  g_ptr_array_unref (self->rerun_notes);
  g_free (self->rewrite);
  g_ptr_array_unref (self->requests);
  g_ptr_array_unref (self->masked);
  g_ptr_array_unref (self->sources);
  g_mutex_clear (&self->save_lock);
  G_OBJECT_CLASS (assay_session_parent_class)->finalize (object);
}

static void
assay_session_class_init (AssaySessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_session_finalize;
}

static void
assay_session_init (AssaySession *self)
{
  self->datasets = g_ptr_array_new_with_free_func (assay_session_dataset_free);
  self->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_llm_message_free);
  self->cells = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_session_cell_free);
  self->interrupted_cells = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_session_cell_free);
  self->timings = g_array_new (FALSE, TRUE, sizeof (AssayStepTiming));
  self->provenance = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) assay_provenance_free);
  self->measured = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->reruns = g_ptr_array_new_with_free_func (g_free);
  self->changes = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_session_change_free);
  self->rerun_notes = g_ptr_array_new_with_free_func (g_free);
  self->requests = g_ptr_array_new_with_free_func (assay_session_request_free);
  self->requests_bytes = -1;
  self->masked = g_ptr_array_new_with_free_func (assay_session_mask_free);
  self->sources = g_ptr_array_new_with_free_func (assay_session_source_free);
  g_mutex_init (&self->save_lock);
  self->status = g_strdup ("new");
  self->created_at = self->updated_at = g_get_real_time ();
}

char *
assay_session_default_parent (void)
{
  return g_build_filename (g_get_user_data_dir (), "assay", "sessions", NULL);
}

static char *
assay_session_record_path (const char *dir)
{
  return g_build_filename (dir, ASSAY_SESSION_RECORD, NULL);
}

static gboolean
assay_session_make_folders (const char  *dir,
                            GError     **error)
{
  const char *subdirs[] = { "data", "artifacts" };

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot create the session folder %s: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (subdirs); i++)
    {
      g_autofree char *path = g_build_filename (dir, subdirs[i], NULL);

      if (g_mkdir_with_parents (path, 0755) != 0)
        {
          int saved = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("Cannot create %s: %s"), path, g_strerror (saved));
          return FALSE;
        }
    }
  return TRUE;
}

static char *
assay_session_new_session_id (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
  g_autofree char *uuid = g_uuid_string_random ();

  return g_strdup_printf ("%s-%.6s", stamp, uuid);
}

AssaySession *
assay_session_new (const char  *dir,
                   GError     **error)
{
  g_autoptr(AssaySession) self = NULL;
  g_autofree char *record = NULL;

  g_return_val_if_fail (dir != NULL, NULL);

  record = assay_session_record_path (dir);
  if (g_file_test (record, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("%s already holds a session (resume it instead)"), dir);
      return NULL;
    }
  if (!assay_session_make_folders (dir, error))
    return NULL;

  self = g_object_new (ASSAY_TYPE_SESSION, NULL);
  self->dir = g_canonicalize_filename (dir, NULL);
  self->id = g_path_get_basename (self->dir);
  return g_steal_pointer (&self);
}

AssaySession *
assay_session_create (const char  *parent,
                      GError     **error)
{
  g_autofree char *default_parent = NULL;
  g_autofree char *id = assay_session_new_session_id ();
  g_autofree char *dir = NULL;

  if (parent == NULL)
    parent = default_parent = assay_session_default_parent ();
  dir = g_build_filename (parent, id, NULL);
  return assay_session_new (dir, error);
}

/* ---- the record as JSON ---------------------------------------------------------------- */

static void
assay_session_set_optional_string (JsonObject *object,
                                   const char *name,
                                   const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, name, value);
  else
    json_object_set_null_member (object, name);
}

static JsonArray *
assay_session_cells_to_json (GPtrArray *cells,
                             guint      from,
                             guint      to)
{
  JsonArray *array = json_array_new ();

  for (guint i = from; i < to; i++)
    json_array_add_element (array, assay_session_cell_to_json (g_ptr_array_index (cells, i)));
  return array;
}

/* The answers' provenance, in the order of the messages. */
static JsonArray *
assay_session_provenance_to_json (AssaySession *self)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < self->messages->len; i++)
    {
      AssayProvenance *provenance = g_hash_table_lookup (self->provenance, GUINT_TO_POINTER (i));
      JsonNode *node;

      if (provenance == NULL)
        continue;
      node = assay_provenance_to_json (provenance);
      json_object_set_int_member (json_node_get_object (node), "message", i);
      json_array_add_element (array, node);
    }
  return array;
}

JsonNode *
assay_session_to_json (AssaySession *self)
{
  g_autoptr(JsonObject) object = json_object_new ();
  JsonArray *datasets = json_array_new ();
  JsonArray *messages = json_array_new ();
  JsonObject *finished = json_object_new ();
  JsonArray *timings = json_array_new ();
  JsonArray *interrupted;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);

  json_object_set_int_member (object, "format_version", ASSAY_SESSION_FORMAT_VERSION);
  json_object_set_string_member (object, "id", self->id);
  assay_session_set_optional_string (object, "title", self->title);
  json_object_set_int_member (object, "created_at", self->created_at);
  json_object_set_int_member (object, "updated_at", self->updated_at);
  assay_session_set_optional_string (object, "provider", self->provider);
  assay_session_set_optional_string (object, "model", self->model);
  if (self->sandbox != NULL)
    {
      JsonObject *sandbox = json_object_new ();

      json_object_set_string_member (sandbox, "backend", self->sandbox);
      assay_session_set_optional_string (sandbox, "where", self->sandbox_where);
      if (self->sandbox_resume_id != NULL)
        json_object_set_string_member (sandbox, "resume_id", self->sandbox_resume_id);
      json_object_set_object_member (object, "sandbox", sandbox);
    }
  json_object_set_string_member (object, "status", self->status);
  assay_session_set_optional_string (object, "answer", self->answer);

  for (guint i = 0; i < self->datasets->len; i++)
    {
      AssaySessionDataset *dataset = g_ptr_array_index (self->datasets, i);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "name", dataset->name);
      json_object_set_string_member (item, "path", dataset->path);
      assay_session_set_optional_string (item, "description", dataset->description);
      if (dataset->sha256 != NULL)
        {
          json_object_set_string_member (item, "sha256", dataset->sha256);
          json_object_set_int_member (item, "bytes", dataset->bytes);
          json_object_set_int_member (item, "rows", dataset->rows);
          json_object_set_int_member (item, "mtime_us", dataset->mtime_us);
        }
      json_array_add_object_element (datasets, item);
    }
  json_object_set_array_member (object, "datasets", datasets);
  if (self->sources->len > 0)
    {
      JsonArray *sources = json_array_new ();

      for (guint i = 0; i < self->sources->len; i++)
        {
          const AssaySessionSource *source = g_ptr_array_index (self->sources, i);
          JsonObject *item = json_object_new ();

          json_object_set_string_member (item, "name", source->name);
          json_object_set_string_member (item, "kind", source->kind);
          json_object_set_string_member (item, "url", source->url);
          if (source->tables != NULL)
            {
              JsonArray *tables = json_array_new ();

              for (guint j = 0; source->tables[j] != NULL; j++)
                json_array_add_string_element (tables, source->tables[j]);
              json_object_set_array_member (item, "tables", tables);
            }
          assay_session_set_optional_string (item, "description", source->description);
          if (source->accepted_risk != NULL && source->risk_seal != NULL)
            {
              JsonObject *risk = json_object_new ();

              json_object_set_string_member (risk, "powers", source->accepted_risk);
              json_object_set_string_member (risk, "seal", source->risk_seal);
              json_object_set_object_member (item, "accepted_risk", risk);
            }
          json_array_add_object_element (sources, item);
        }
      json_object_set_array_member (object, "sources", sources);
    }

  for (guint i = 0; i < self->messages->len; i++)
    json_array_add_element (messages, assay_llm_message_to_json (g_ptr_array_index (self->messages, i)));
  json_object_set_array_member (object, "messages", messages);
  json_object_set_array_member (object,
                                "cells",
                                assay_session_cells_to_json (self->cells, 0, self->cells->len));

  json_object_set_int_member (finished, "steps", self->n_steps);
  json_object_set_int_member (finished, "messages", self->finished_messages);
  json_object_set_int_member (finished, "cells", self->finished_cells);
  json_object_set_object_member (object, "finished", finished);

  interrupted = assay_session_cells_to_json (self->interrupted_cells, 0, self->interrupted_cells->len);
  json_object_set_array_member (object, "interrupted_cells", interrupted);

  for (guint i = 0; i < self->timings->len; i++)
    {
      const AssayStepTiming *timing = &g_array_index (self->timings, AssayStepTiming, i);
      JsonObject *item = json_object_new ();

      json_object_set_int_member (item, "step", timing->step);
      json_object_set_int_member (item, "wall_us", timing->wall_us);
      json_object_set_int_member (item, "model_us", timing->model_us);
      json_object_set_int_member (item, "cell_us", timing->cell_us);
      json_object_set_int_member (item, "code_us", timing->code_us);
      json_object_set_int_member (item, "approval_us", timing->approval_us);
      json_array_add_object_element (timings, item);
    }
  json_object_set_array_member (object, "timings", timings);
  json_object_set_array_member (object, "provenance", assay_session_provenance_to_json (self));
  assay_session_set_optional_string (object, "rerun_of", self->rerun_of);
  assay_session_set_optional_string (object, "rerun_of_title", self->rerun_of_title);
  assay_session_set_optional_string (object, "rewrite", self->rewrite);
  {
    JsonObject *privacy = json_object_new ();
    JsonArray *masked = json_array_new ();

    json_object_set_string_member (privacy, "mode", assay_privacy_mode_to_string (self->privacy_mode));
    for (guint i = 0; i < self->masked->len; i++)
      {
        const AssaySessionMask *mask = g_ptr_array_index (self->masked, i);
        JsonObject *item = json_object_new ();

        json_object_set_string_member (item, "dataset", mask->dataset);
        json_object_set_string_member (item, "column", mask->column);
        json_array_add_object_element (masked, item);
      }
    json_object_set_array_member (privacy, "masked", masked);
    json_object_set_object_member (object, "privacy", privacy);
  }
  {
    JsonArray *requests = json_array_new ();

    for (guint i = 0; i < self->requests->len; i++)
      {
        const AssaySessionRequest *request = g_ptr_array_index (self->requests, i);
        JsonObject *item = json_object_new ();

        json_object_set_int_member (item, "number", request->number);
        json_object_set_int_member (item, "step", request->step);
        json_object_set_string_member (item, "host", request->host);
        assay_session_set_optional_string (item, "model", request->model);
        json_object_set_int_member (item, "sent_at", request->sent_at);
        json_object_set_int_member (item, "bytes_out", request->bytes_out);
        json_object_set_int_member (item, "bytes_in", request->bytes_in);
        json_object_set_int_member (item, "input_tokens", request->input_tokens);
        json_object_set_int_member (item, "cached_input_tokens", request->cached_input_tokens);
        json_object_set_int_member (item, "cache_write_tokens", request->cache_write_tokens);
        json_object_set_int_member (item, "output_tokens", request->output_tokens);
        json_object_set_int_member (item, "reasoning_tokens", request->reasoning_tokens);
        if (request->cost >= 0)
          json_object_set_double_member (item, "cost_usd", request->cost);
        assay_session_set_optional_string (item, "mode", request->mode);
        json_object_set_string_member (item, "sha256", request->sha256);
        assay_session_set_optional_string (item, "file", request->file);
        json_array_add_object_element (requests, item);
      }
    json_object_set_array_member (object, "requests", requests);
  }
  {
    JsonArray *reruns = json_array_new ();

    for (guint i = 0; i < self->reruns->len; i++)
      json_array_add_string_element (reruns, g_ptr_array_index (self->reruns, i));
    json_object_set_array_member (object, "reruns", reruns);
  }
  if (self->changes->len > 0 || self->rerun_notes->len > 0)
    {
      JsonArray *changes = json_array_new ();
      JsonArray *notes = json_array_new ();

      for (guint i = 0; i < self->changes->len; i++)
        {
          const AssaySessionChange *change = g_ptr_array_index (self->changes, i);
          JsonObject *item = json_object_new ();

          json_object_set_int_member (item, "question", change->question);
          json_object_set_string_member (item, "before_text", change->before_text);
          json_object_set_string_member (item, "after_text", change->after_text);
          json_object_set_double_member (item, "before", change->before);
          json_object_set_double_member (item, "after", change->after);
          json_object_set_boolean_member (item, "stale", change->stale);
          assay_session_set_optional_string (item, "cell", change->cell_id);
          assay_session_set_optional_string (item, "label", change->label);
          assay_session_set_optional_string (item, "sentence", change->sentence);
          json_array_add_object_element (changes, item);
        }
      json_object_set_array_member (object, "changes", changes);
      for (guint i = 0; i < self->rerun_notes->len; i++)
        json_array_add_string_element (notes, g_ptr_array_index (self->rerun_notes, i));
      json_object_set_array_member (object, "rerun_notes", notes);
    }

  return json_node_init_object (json_node_alloc (), g_steal_pointer (&object));
}

/* The record as the text save writes, on the owner's thread. */
static char *
assay_session_record_text (AssaySession *self,
                           gsize        *length)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  self->updated_at = MAX (g_get_real_time (), self->updated_at);
  node = assay_session_to_json (self);
  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  return json_generator_to_data (generator, length);
}

static gboolean
assay_session_write_all (int          fd,
                         const char  *text,
                         gsize        length)
{
  while (length > 0)
    {
      gssize written = write (fd, text, length);

      if (written < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      text += written;
      length -= (gsize) written;
    }
  return TRUE;
}

/* Writes TEXT to a temporary file beside the record and syncs it: a crash leaves the old
 * record or the new one, whole. Any thread: it touches only DIR. */
static char *
assay_session_write_temporary (const char  *dir,
                               const char  *text,
                               gsize        length,
                               GError     **error)
{
  g_autofree char *tmp_path = g_strdup_printf ("%s/." ASSAY_SESSION_RECORD ".XXXXXX", dir);
  int fd = g_mkstemp_full (tmp_path, O_WRONLY | O_CLOEXEC, 0644);
  int saved;

  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot save the session: %s"), g_strerror (saved));
      return NULL;
    }
  if (!assay_session_write_all (fd, text, length) || fsync (fd) != 0)
    {
      saved = errno;
      close (fd);
      g_unlink (tmp_path);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot save the session: %s"), g_strerror (saved));
      return NULL;
    }
  if (close (fd) != 0)
    {
      saved = errno;
      g_unlink (tmp_path);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot save the session: %s"), g_strerror (saved));
      return NULL;
    }
  return g_steal_pointer (&tmp_path);
}

/* Moves the temporary file into place unless a newer save got there first. Any thread. */
static gboolean
assay_session_commit_record (AssaySession  *self,
                             const char    *tmp_path,
                             guint64        serial,
                             GError       **error)
{
  g_autofree char *path = assay_session_record_path (self->dir);
  gboolean ok = TRUE;

  g_mutex_lock (&self->save_lock);
  if (serial < self->written_serial)
    g_unlink (tmp_path);
  else if (g_rename (tmp_path, path) != 0)
    {
      int saved = errno;

      g_unlink (tmp_path);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot save the session: %s"), g_strerror (saved));
      ok = FALSE;
    }
  else
    self->written_serial = serial;
  g_mutex_unlock (&self->save_lock);
  return ok;
}

gboolean
assay_session_save (AssaySession  *self,
                    GError       **error)
{
  g_autofree char *text = NULL;
  g_autofree char *tmp_path = NULL;
  gsize length;
  guint64 serial;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), FALSE);

  serial = ++self->save_serial;
  text = assay_session_record_text (self, &length);
  tmp_path = assay_session_write_temporary (self->dir, text, length, error);
  return tmp_path != NULL && assay_session_commit_record (self, tmp_path, serial, error);
}

typedef struct
{
  char    *text;
  gsize    length;
  guint64  serial;
} SaveData;

static void
assay_session_save_data_free (SaveData *data)
{
  g_free (data->text);
  g_free (data);
}

/* Sees only the text and the session's folder and lock, never the rest of the session. */
static void
assay_session_save_worker (GTask        *task,
                           gpointer      source_object,
                           gpointer      task_data,
                           GCancellable *cancellable)
{
  AssaySession *self = source_object;
  SaveData *data = task_data;
  g_autofree char *tmp_path = NULL;
  GError *error = NULL;

  tmp_path = assay_session_write_temporary (self->dir, data->text, data->length, &error);
  if (tmp_path == NULL || !assay_session_commit_record (self, tmp_path, data->serial, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
assay_session_save_async (AssaySession        *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SaveData *data;

  g_return_if_fail (ASSAY_IS_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_session_save_async);
  data = g_new0 (SaveData, 1);
  data->serial = ++self->save_serial;
  data->text = assay_session_record_text (self, &data->length);
  g_task_set_task_data (task, data, (GDestroyNotify) assay_session_save_data_free);
  g_task_run_in_thread (task, assay_session_save_worker);
}

gboolean
assay_session_save_finish (AssaySession  *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* What the sandbox shows as /data/NAME: one file name, nothing that walks elsewhere. */
static gboolean
assay_session_dataset_name_is_plain (const char *name)
{
  return name != NULL && *name != '\0' && strchr (name, '/') == NULL &&
         !g_str_equal (name, ".") && !g_str_equal (name, "..");
}

/* Reading never trusts the file: every member is checked for its type. */
/* A cell of a step that never finished: it may have run, but nobody saw its result. */
static void
assay_session_add_interrupted (AssaySession     *self,
                               AssaySessionCell *cell)
{
  if (cell->status == ASSAY_CELL_PROPOSED || cell->status == ASSAY_CELL_RUNNING)
    {
      cell->status = ASSAY_CELL_INTERRUPTED;
    }
  g_ptr_array_add (self->interrupted_cells, cell);
}

/* A shared folder may hold anything where the record should be: a FIFO (which would block
 * the reader for ever), a link to a file elsewhere, a device, a huge file. Only a regular
 * file, opened without following a link, of at most MAX_RECORD_BYTES, is read. */
#define MAX_RECORD_BYTES (1024 * 1024 * 1024)

static gboolean
assay_session_read_record (const char    *path,
                           GCancellable  *cancellable,
                           char         **text_out,
                           gsize         *length_out,
                           GError       **error)
{
  g_autofree char *text = NULL;
  struct stat st;
  gsize done = 0;
  int fd;

  fd = open (path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    {
      int saved = errno;

      if (saved == ELOOP)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("%s is a symbolic link; it is not followed"), path);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     "%s: %s", path, g_strerror (saved));
      return FALSE;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > MAX_RECORD_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   S_ISREG (st.st_mode) ? _("%s is larger than 1 GB") : _("%s is not a regular file"),
                   path);
      close (fd);
      return FALSE;
    }
  text = g_malloc ((gsize) st.st_size + 1);
  while (done < (gsize) st.st_size)
    {
      gssize n = read (fd, text + done, (gsize) st.st_size - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;   /* it shrank while read: the parser will say what is wrong */
      done += (gsize) n;
      if (g_cancellable_is_cancelled (cancellable))
        break;
    }
  close (fd);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  text[done] = '\0';
  *text_out = g_steal_pointer (&text);
  *length_out = done;
  return TRUE;
}

/* Builds the session in the calling thread; nothing in it is bound to a main context. */
/* Each answer's provenance, for the messages that were read, checked against their text. */
static void
assay_session_provenance_from_json (AssaySession *self,
                                    JsonArray    *array,
                                    GHashTable   *loaded_index)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      AssayProvenance *provenance;
      const AssayLlmMessage *message;
      gint64 saved;
      guint index;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        continue;
      saved = assay_json_get_int_or (json_node_get_object (item), "message", -1);
      if (saved < 0 || saved >= G_MAXUINT - 1)
        continue;
      index = GPOINTER_TO_UINT (g_hash_table_lookup (loaded_index, GUINT_TO_POINTER ((guint) saved + 1)));
      if (index == 0)
        continue;
      message = g_ptr_array_index (self->messages, index - 1);
      if (message->role != ASSAY_LLM_ROLE_ASSISTANT || message->tool_calls->len > 0)
        continue;
      provenance = assay_provenance_from_json (item, message->text);
      if (provenance != NULL)
        g_hash_table_replace (self->provenance, GUINT_TO_POINTER (index - 1), provenance);
    }
}

/* CHECK_DATASETS: whether each dataset's copy is compared with what was added (a stat, and a
 * hash when it moved); a listing of the sessions does not need to know. */

/* A short text of the record (a change's label or sentence): valid UTF-8 of at most 1 KiB,
 * else none. */
static char *
assay_session_dup_short_text (JsonObject *object,
                              const char *member)
{
  const char *text = assay_json_get_string (object, member);

  if (text == NULL || strlen (text) > 1024 || !g_utf8_validate (text, -1, NULL))
    return NULL;
  return g_strdup (text);
}

static AssaySession *
assay_session_load_record (const char    *dir,
                           gboolean       check_datasets,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_autoptr(AssaySession) self = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  gsize length;
  JsonObject *root;
  JsonObject *finished = NULL;
  JsonArray *array;
  JsonNode *node;
  gint64 version;
  guint n_messages, n_cells;
  /* Where each message of the record went (from 1): one that does not read is skipped. */
  g_autoptr(GHashTable) loaded_index = g_hash_table_new (NULL, NULL);

  path = assay_session_record_path (dir);
  if (!assay_session_read_record (path, cancellable, &text, &length, &local_error))
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                    _("Cannot read the session %s: "), dir);
      return NULL;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (!assay_json_parser_load_untrusted (parser, text, (gssize) length, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The session record %s is damaged: %s"), path, local_error->message);
      return NULL;
    }
  g_clear_pointer (&text, g_free);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  node = json_parser_get_root (parser);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    goto bad;
  root = json_node_get_object (node);
  version = assay_json_get_int_or (root, "format_version", 0);
  if (version < 1)
    goto bad;
  if (version > ASSAY_SESSION_FORMAT_VERSION)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("The session %s was written by a newer Assay (format %lld)"),
                   dir, (long long) version);
      return NULL;
    }

  self = g_object_new (ASSAY_TYPE_SESSION, NULL);
  self->dir = g_canonicalize_filename (dir, NULL);
  self->id = assay_json_dup_string (root, "id");
  if (self->id == NULL)
    self->id = g_path_get_basename (self->dir);
  self->title = assay_json_dup_string (root, "title");
  self->provider = assay_json_dup_string (root, "provider");
  self->model = assay_json_dup_string (root, "model");
  g_free (self->status);
  self->status = assay_json_dup_string (root, "status");
  if (self->status == NULL)
    self->status = g_strdup ("new");
  self->answer = assay_json_dup_string (root, "answer");
  self->created_at = assay_json_get_int_or (root, "created_at", 0);
  self->updated_at = assay_json_get_int_or (root, "updated_at", 0);

  if ((array = assay_json_get_array (root, "datasets")))
    for (guint i = 0; i < json_array_get_length (array); i++)
      {
        JsonNode *item = json_array_get_element (array, i);
        AssaySessionDataset *dataset;

        if (!JSON_NODE_HOLDS_OBJECT (item))
          continue;
        dataset = g_new0 (AssaySessionDataset, 1);
        dataset->name = assay_json_dup_string (json_node_get_object (item), "name");
        dataset->path = assay_json_dup_string (json_node_get_object (item), "path");
        dataset->description = assay_json_dup_string (json_node_get_object (item), "description");
        dataset->sha256 = assay_json_dup_string (json_node_get_object (item), "sha256");
        if (dataset->sha256 != NULL &&
            (strlen (dataset->sha256) != 64 || strspn (dataset->sha256, "0123456789abcdef") != 64))
          g_clear_pointer (&dataset->sha256, g_free);
        dataset->bytes = MAX (assay_json_get_int_or (json_node_get_object (item), "bytes", 0), 0);
        dataset->rows = MAX (assay_json_get_int_or (json_node_get_object (item), "rows", -1), -1);
        dataset->mtime_us = assay_json_get_int_or (json_node_get_object (item), "mtime_us", 0);
        /* A dataset is a plain file in data/: a record naming "/home/…" or "../x" must
         * not bring a host file into the sandbox (and so to the model). */
        if (dataset->name == NULL || dataset->path == NULL ||
            !assay_session_dataset_name_is_plain (dataset->name) ||
            !assay_session_path_is_clean (dataset->path) ||
            !g_str_has_prefix (dataset->path, "data/"))
          {
            assay_session_dataset_free (dataset);
            continue;
          }
        if (check_datasets && assay_session_path_is_below (self->dir, dataset->path))
          assay_session_dataset_check (dataset, self->dir);
        g_ptr_array_add (self->datasets, dataset);
      }

  if ((array = assay_json_get_array (root, "sources")))
    for (guint i = 0; i < json_array_get_length (array) && i < 64; i++)
      {
        JsonNode *item = json_array_get_element (array, i);
        AssaySessionSource *source;
        JsonObject *risk;
        JsonArray *tables;
        g_autoptr(GPtrArray) names = g_ptr_array_new ();

        if (!JSON_NODE_HOLDS_OBJECT (item) ||
            assay_json_get_string (json_node_get_object (item), "name") == NULL ||
            assay_json_get_string (json_node_get_object (item), "url") == NULL)
          continue;
        if ((tables = assay_json_get_array (json_node_get_object (item), "tables")))
          for (guint j = 0; j < json_array_get_length (tables); j++)
            {
              JsonNode *table = json_array_get_element (tables, j);

              if (JSON_NODE_HOLDS_VALUE (table) && json_node_get_value_type (table) == G_TYPE_STRING)
                g_ptr_array_add (names, (gpointer) json_node_get_string (table));
            }
        g_ptr_array_add (names, NULL);
        source = (AssaySessionSource *) assay_session_add_source (self,
                                  assay_json_get_string (json_node_get_object (item), "name"),
                                  assay_json_get_string (json_node_get_object (item), "kind"),
                                  assay_json_get_string (json_node_get_object (item), "url"),
                                  names->len > 1 ? (const char * const *) names->pdata : NULL,
                                  assay_json_get_string (json_node_get_object (item), "description"));
        if ((risk = assay_json_get_object (json_node_get_object (item), "accepted_risk")) != NULL &&
            assay_json_get_string (risk, "powers") != NULL && assay_json_get_string (risk, "seal") != NULL)
          {
            source->accepted_risk = g_strndup (assay_json_get_string (risk, "powers"), 1024);
            source->risk_seal = g_strndup (assay_json_get_string (risk, "seal"), 64);
          }
      }

  node = json_object_get_member (root, "finished");
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    finished = json_node_get_object (node);
  self->n_steps = (guint) MAX (assay_json_get_int_or (finished, "steps", 0), 0);
  n_messages = (guint) MAX (assay_json_get_int_or (finished, "messages", 0), 0);
  n_cells = (guint) MAX (assay_json_get_int_or (finished, "cells", 0), 0);

  /* Only the finished steps come back: a half-answered turn would confuse the model. */
  if ((array = assay_json_get_array (root, "messages")))
    for (guint i = 0; i < json_array_get_length (array) && i < n_messages; i++)
      {
        AssayLlmMessage *message = assay_llm_message_from_json (json_array_get_element (array, i));

        if (message != NULL)
          {
            g_hash_table_insert (loaded_index, GUINT_TO_POINTER (i + 1), GUINT_TO_POINTER (self->messages->len + 1));
            g_ptr_array_add (self->messages, message);
          }
      }
  if ((array = assay_json_get_array (root, "provenance")))
    assay_session_provenance_from_json (self, array, loaded_index);
  {
    JsonObject *sandbox = assay_json_get_object (root, "sandbox");

    /* Said in reports and `session show`: a short line of text, or nothing. */
    if (sandbox != NULL)
      {
        self->sandbox = assay_json_dup_string (sandbox, "backend");
        self->sandbox_where = assay_json_dup_string (sandbox, "where");
        if (self->sandbox != NULL && (strlen (self->sandbox) > 64 || !g_utf8_validate (self->sandbox, -1, NULL)))
          g_clear_pointer (&self->sandbox, g_free);
        if (self->sandbox == NULL ||
            (self->sandbox_where != NULL && (strlen (self->sandbox_where) > 1024 ||
                                             !g_utf8_validate (self->sandbox_where, -1, NULL))))
          g_clear_pointer (&self->sandbox_where, g_free);
        self->sandbox_resume_id = assay_json_dup_string (sandbox, "resume_id");
        if (self->sandbox == NULL || !assay_session_resume_id_is_valid (self->sandbox_resume_id))
          g_clear_pointer (&self->sandbox_resume_id, g_free);
      }
  }
  self->rerun_of = assay_json_dup_string (root, "rerun_of");
  self->rerun_of_title = assay_json_dup_string (root, "rerun_of_title");
  self->rewrite = assay_json_dup_string (root, "rewrite");
  if (self->rewrite != NULL && !g_utf8_validate (self->rewrite, -1, NULL))
    g_clear_pointer (&self->rewrite, g_free);
  if (self->rerun_of_title != NULL && (strlen (self->rerun_of_title) > 4096 ||
                                       !g_utf8_validate (self->rerun_of_title, -1, NULL)))
    g_clear_pointer (&self->rerun_of_title, g_free);
  {
    JsonObject *privacy = assay_json_get_object (root, "privacy");
    AssayPrivacyMode mode;

    if (assay_privacy_mode_from_string (assay_json_get_string (privacy, "mode"), &mode))
      self->privacy_mode = mode;
    if ((array = assay_json_get_array (privacy, "masked")))
      for (guint i = 0; i < json_array_get_length (array) && i < 10000; i++)
        {
          JsonNode *item = json_array_get_element (array, i);
          const char *dataset, *column;

          if (!JSON_NODE_HOLDS_OBJECT (item))
            continue;
          dataset = assay_json_get_string (json_node_get_object (item), "dataset");
          column = assay_json_get_string (json_node_get_object (item), "column");
          if (dataset != NULL && column != NULL && *column != '\0' && strlen (column) < 4096 &&
              g_utf8_validate (column, -1, NULL) && g_utf8_validate (dataset, -1, NULL))
            assay_session_set_column_masked (self, dataset, column, TRUE);
        }
  }
  if ((array = assay_json_get_array (root, "requests")))
    for (guint i = 0; i < json_array_get_length (array) && i < 100000; i++)
      {
        JsonNode *item = json_array_get_element (array, i);
        JsonObject *object;
        AssaySessionRequest *request;
        const char *sha256;

        if (!JSON_NODE_HOLDS_OBJECT (item))
          continue;
        object = json_node_get_object (item);
        sha256 = assay_json_get_string (object, "sha256");
        if (sha256 == NULL || strlen (sha256) != 64 || strspn (sha256, "0123456789abcdef") != 64)
          continue;
        request = g_new0 (AssaySessionRequest, 1);
        request->number = (guint) CLAMP (assay_json_get_int_or (object, "number", i + 1), 1, G_MAXINT);
        request->step = (guint) CLAMP (assay_json_get_int_or (object, "step", 0), 0, G_MAXINT);
        request->host = g_strdup (assay_json_get_string (object, "host") ?: "?");
        request->model = assay_json_dup_string (object, "model");
        request->sent_at = assay_json_get_int_or (object, "sent_at", 0);
        request->bytes_out = MAX (assay_json_get_int_or (object, "bytes_out", 0), 0);
        request->bytes_in = MAX (assay_json_get_int_or (object, "bytes_in", -1), -1);
        request->input_tokens = MAX (assay_json_get_int_or (object, "input_tokens", -1), -1);
        request->cached_input_tokens = MAX (assay_json_get_int_or (object, "cached_input_tokens", -1), -1);
        request->cache_write_tokens = MAX (assay_json_get_int_or (object, "cache_write_tokens", -1), -1);
        request->output_tokens = MAX (assay_json_get_int_or (object, "output_tokens", -1), -1);
        request->reasoning_tokens = MAX (assay_json_get_int_or (object, "reasoning_tokens", -1), -1);
        request->cost = assay_json_get_double_or (object, "cost_usd", -1);
        if (request->cost < 0 || request->cost > 1e9)
          request->cost = -1;
        {
          AssayPrivacyMode mode;

          if (assay_privacy_mode_from_string (assay_json_get_string (object, "mode"), &mode))
            request->mode = g_strdup (assay_privacy_mode_to_string (mode));
        }
        request->sha256 = g_strdup (sha256);
        request->file = assay_json_dup_string (object, "file");
        /* A body is a file of requests/ and nothing else. */
        if (request->file != NULL &&
            (!assay_session_path_is_clean (request->file) || !g_str_has_prefix (request->file, "requests/")))
          g_clear_pointer (&request->file, g_free);
        g_ptr_array_add (self->requests, request);
      }
  if ((array = assay_json_get_array (root, "reruns")))
    for (guint i = 0; i < json_array_get_length (array) && i < 1000; i++)
      {
        JsonNode *item = json_array_get_element (array, i);

        if (JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING)
          g_ptr_array_add (self->reruns, g_strdup (json_node_get_string (item)));
      }
  if ((array = assay_json_get_array (root, "changes")))
    for (guint i = 0; i < json_array_get_length (array) && i < 100000; i++)
      {
        JsonNode *item = json_array_get_element (array, i);
        JsonObject *object;
        const char *before_text, *after_text;
        AssaySessionChange *change;

        if (!JSON_NODE_HOLDS_OBJECT (item))
          continue;
        object = json_node_get_object (item);
        before_text = assay_json_get_string (object, "before_text");
        after_text = assay_json_get_string (object, "after_text");
        if (before_text == NULL || after_text == NULL || strlen (before_text) > 256 || strlen (after_text) > 256 ||
            !g_utf8_validate (before_text, -1, NULL) || !g_utf8_validate (after_text, -1, NULL))
          continue;
        change = g_new0 (AssaySessionChange, 1);
        change->question = (guint) CLAMP (assay_json_get_int_or (object, "question", 1), 1, G_MAXINT);
        change->before_text = g_strdup (before_text);
        change->after_text = g_strdup (after_text);
        change->before = assay_json_get_double_or (object, "before", 0);
        change->after = assay_json_get_double_or (object, "after", 0);
        change->stale = json_object_has_member (object, "stale") &&
                        JSON_NODE_HOLDS_VALUE (json_object_get_member (object, "stale")) &&
                        json_object_get_boolean_member (object, "stale");
        change->cell_id = assay_json_dup_string (object, "cell");
        change->label = assay_session_dup_short_text (object, "label");
        change->sentence = assay_session_dup_short_text (object, "sentence");
        if (!isfinite (change->before))
          change->before = 0;
        if (!isfinite (change->after))
          {
            change->stale = TRUE;
            change->after = change->before;
          }
        g_ptr_array_add (self->changes, change);
      }
  if ((array = assay_json_get_array (root, "rerun_notes")))
    for (guint i = 0; i < json_array_get_length (array) && i < 1000; i++)
      {
        JsonNode *item = json_array_get_element (array, i);

        if (JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING &&
            g_utf8_validate (json_node_get_string (item), -1, NULL) && strlen (json_node_get_string (item)) < 4096)
          g_ptr_array_add (self->rerun_notes, g_strdup (json_node_get_string (item)));
      }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if ((array = assay_json_get_array (root, "cells")))
    for (guint i = 0; i < json_array_get_length (array); i++)
      {
        AssaySessionCell *cell;

        /* Cells carry the outputs, the bulk of a long session. */
        if (i % 64 == 63 && g_cancellable_set_error_if_cancelled (cancellable, error))
          return NULL;
        cell = assay_session_cell_from_json (json_array_get_element (array, i));
        if (cell == NULL)
          continue;
        if (i < n_cells)
          g_ptr_array_add (self->cells, cell);
        else
          assay_session_add_interrupted (self, cell);
      }
  if ((array = assay_json_get_array (root, "timings")))
    for (guint i = 0; i < json_array_get_length (array); i++)
      {
        JsonNode *item = json_array_get_element (array, i);
        JsonObject *object;
        AssayStepTiming timing = { 0, };

        if (!JSON_NODE_HOLDS_OBJECT (item))
          continue;
        object = json_node_get_object (item);
        timing.step = (guint) CLAMP (assay_json_get_int_or (object, "step", 0), 0, G_MAXINT);
        if (timing.step == 0 || timing.step > self->n_steps)
          continue;
        timing.wall_us = MAX (assay_json_get_int_or (object, "wall_us", 0), 0);
        timing.model_us = MAX (assay_json_get_int_or (object, "model_us", 0), 0);
        timing.cell_us = MAX (assay_json_get_int_or (object, "cell_us", 0), 0);
        timing.code_us = MAX (assay_json_get_int_or (object, "code_us", 0), 0);
        timing.approval_us = MAX (assay_json_get_int_or (object, "approval_us", 0), 0);
        g_array_append_val (self->timings, timing);
      }
  if ((array = assay_json_get_array (root, "interrupted_cells")))
    for (guint i = 0; i < json_array_get_length (array); i++)
      {
        AssaySessionCell *cell = assay_session_cell_from_json (json_array_get_element (array, i));

        if (cell != NULL)
          assay_session_add_interrupted (self, cell);
      }
  self->finished_messages = self->messages->len;
  self->finished_cells = self->cells->len;
  if (g_strcmp0 (self->status, "running") == 0)
    {
      g_free (self->status);
      self->status = g_strdup ("interrupted");
    }
  return g_steal_pointer (&self);

bad:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("%s is not a session record"), path);
  return NULL;
}

AssaySession *
assay_session_load (const char  *dir,
                    GError     **error)
{
  g_return_val_if_fail (dir != NULL, NULL);
  return assay_session_load_record (dir, TRUE, NULL, error);
}

static void
assay_session_load_worker (GTask        *task,
                           gpointer      source_object,
                           gpointer      task_data,
                           GCancellable *cancellable)
{
  GError *error = NULL;
  AssaySession *session = assay_session_load_record (task_data, TRUE, cancellable, &error);

  if (session == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, session, g_object_unref);
}

void
assay_session_load_async (const char          *dir,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (dir != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_session_load_async);
  g_task_set_task_data (task, g_strdup (dir), g_free);
  g_task_run_in_thread (task, assay_session_load_worker);
}

AssaySession *
assay_session_load_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == assay_session_load_async, NULL);
  /* A load cancelled after its worker finished still reports the cancellation, so a
   * superseded request never hands back a session. */
  return g_task_propagate_pointer (G_TASK (result), error);
}

static int
assay_session_compare_updated (gconstpointer a,
                               gconstpointer b)
{
  AssaySession *first = *(AssaySession **) a;
  AssaySession *second = *(AssaySession **) b;

  if (first->updated_at != second->updated_at)
    return first->updated_at > second->updated_at ? -1 : 1;
  return g_strcmp0 (first->id, second->id);
}

GPtrArray *
assay_session_list (const char  *parent,
                    GError     **error)
{
  g_autofree char *default_parent = NULL;
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *name;

  if (parent == NULL)
    parent = default_parent = assay_session_default_parent ();

  dir = g_dir_open (parent, 0, &local_error);
  if (dir == NULL)
    {
      /* No folder yet is no session yet. */
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_steal_pointer (&sessions);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  while ((name = g_dir_read_name (dir)))
    {
      g_autofree char *path = g_build_filename (parent, name, NULL);
      g_autofree char *record = assay_session_record_path (path);
      AssaySession *session;
      GStatBuf st;

      if (g_lstat (path, &st) != 0 || !S_ISDIR (st.st_mode) ||
          !g_file_test (record, G_FILE_TEST_IS_REGULAR))
        continue;
      session = assay_session_load_record (path, FALSE, NULL, NULL);
      if (session != NULL)
        g_ptr_array_add (sessions, session);
    }
  g_ptr_array_sort (sessions, assay_session_compare_updated);
  return g_steal_pointer (&sessions);
}

gboolean
assay_session_rename (AssaySession  *self,
                      const char    *title,
                      GError       **error)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), FALSE);
  assay_session_set_title (self, title);
  return assay_session_save (self, error);
}

/* Removes what DIR_FD holds, never leaving it: entries are examined with fstatat without
 * following links, folders opened with O_NOFOLLOW, links unlinked as links. */
static gboolean
assay_session_remove_contents (int          dir_fd,
                               const char  *shown,
                               GError     **error)
{
  DIR *dir;
  struct dirent *entry;
  int fd = dup (dir_fd);

  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot read %s: %s"), shown, g_strerror (saved));
      return FALSE;
    }

  while ((entry = readdir (dir)) != NULL)
    {
      struct stat st;

      if (g_str_equal (entry->d_name, ".") || g_str_equal (entry->d_name, ".."))
        continue;
      if (fstatat (dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        {
          g_autofree char *child_shown = g_build_filename (shown, entry->d_name, NULL);
          int child = openat (dir_fd, entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          gboolean ok;

          if (child < 0)
            {
              int saved = errno;
              g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                           _("Cannot open %s: %s"), child_shown, g_strerror (saved));
              closedir (dir);
              return FALSE;
            }
          ok = assay_session_remove_contents (child, child_shown, error);
          close (child);
          if (!ok)
            {
              closedir (dir);
              return FALSE;
            }
          if (unlinkat (dir_fd, entry->d_name, AT_REMOVEDIR) != 0)
            goto failed;
        }
      else if (unlinkat (dir_fd, entry->d_name, 0) != 0)
        goto failed;
      continue;

    failed:
      {
        int saved = errno;
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     _("Cannot remove %s/%s: %s"), shown, entry->d_name, g_strerror (saved));
        closedir (dir);
        return FALSE;
      }
    }
  closedir (dir);
  return TRUE;
}

gboolean
assay_session_delete (const char  *dir,
                      GError     **error)
{
  g_autofree char *record = NULL;
  struct stat st;
  int fd;
  gboolean ok;

  g_return_val_if_fail (dir != NULL, FALSE);

  if (lstat (dir, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                   _("%s is not a session folder"), dir);
      return FALSE;
    }
  /* Only a session is deleted: a typo must not remove someone's home. */
  record = assay_session_record_path (dir);
  if (lstat (record, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s holds no session record; not deleting it"), dir);
      return FALSE;
    }

  fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot open %s: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  ok = assay_session_remove_contents (fd, dir, error);
  close (fd);
  if (ok && g_rmdir (dir) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot remove %s: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  return ok;
}

/* ---- getters and setters ---------------------------------------------------------------- */

const char *
assay_session_get_dir (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->dir;
}

const char *
assay_session_get_id (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->id;
}

const char *
assay_session_get_title (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->title;
}

void
assay_session_set_title (AssaySession *self,
                         const char   *title)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_free (self->title);
  self->title = g_strdup (title);
}

const char *
assay_session_get_provider (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->provider;
}

const char *
assay_session_get_model (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->model;
}

void
assay_session_set_provider (AssaySession *self,
                            const char   *provider,
                            const char   *model)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_free (self->provider);
  self->provider = g_strdup (provider);
  g_free (self->model);
  self->model = g_strdup (model);
}

/**
 * assay_session_set_sandbox:
 * @backend: "docker" or "bwrap"
 * @where: (nullable): where that is, in words: "Docker 28.2.2 at /var/run/docker.sock"
 *
 * Where the session's cells run, kept in the record for the reports.
 */
void
assay_session_set_sandbox (AssaySession *self,
                           const char   *backend,
                           const char   *where)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  /* Another backend cannot resume the sandbox. */
  if (g_strcmp0 (backend, self->sandbox) != 0)
    g_clear_pointer (&self->sandbox_resume_id, g_free);
  g_free (self->sandbox);
  self->sandbox = g_strdup (backend);
  g_free (self->sandbox_where);
  self->sandbox_where = g_strdup (where);
}

const char *
assay_session_get_sandbox (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->sandbox;
}

const char *
assay_session_get_sandbox_where (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->sandbox_where;
}

/* An id for a URL's path and a host name: letters, digits, "-" and "_", at most 128. */
static gboolean
assay_session_resume_id_is_valid (const char *id)
{
  if (id == NULL || id[0] == '\0' || strlen (id) > 128)
    return FALSE;
  for (const char *c = id; *c != '\0'; c++)
    if (!g_ascii_isalnum (*c) && *c != '-' && *c != '_')
      return FALSE;
  return TRUE;
}

/**
 * assay_session_set_sandbox_resume_id:
 * @resume_id: (nullable): the sandbox kept for later, as its backend names it
 *
 * The sandbox the session's kernel waits in (E2B's paused sandbox): an id, never a secret.
 * An id that is not letters, digits, "-" and "_" (at most 128) is not kept.
 */
void
assay_session_set_sandbox_resume_id (AssaySession *self,
                                     const char   *resume_id)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_free (self->sandbox_resume_id);
  self->sandbox_resume_id = assay_session_resume_id_is_valid (resume_id) ? g_strdup (resume_id) : NULL;
}

const char *
assay_session_get_sandbox_resume_id (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->sandbox_resume_id;
}

gint64
assay_session_get_created (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), 0);
  return self->created_at;
}

gint64
assay_session_get_updated (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), 0);
  return self->updated_at;
}

const char *
assay_session_get_status (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->status;
}

const char *
assay_session_get_answer (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->answer;
}

void
assay_session_set_outcome (AssaySession *self,
                           const char   *status,
                           const char   *answer)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (status != NULL);
  g_free (self->status);
  self->status = g_strdup (status);
  g_free (self->answer);
  self->answer = g_strdup (answer);
}

char *
assay_session_get_artifact_dir (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return g_build_filename (self->dir, "artifacts", NULL);
}

char *
assay_session_get_data_dir (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return g_build_filename (self->dir, "data", NULL);
}

char *
assay_session_get_queries_dir (AssaySession  *self,
                               GError       **error)
{
  g_autofree char *dir = NULL;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  dir = g_build_filename (self->dir, "queries", NULL);
  if (g_mkdir_with_parents (dir, 0755) != 0 || g_file_test (dir, G_FILE_TEST_IS_SYMLINK))
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot make the folder %s: %s"), dir, g_strerror (saved));
      return NULL;
    }
  return g_steal_pointer (&dir);
}

GPtrArray *
assay_session_get_sources (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->sources;
}

const AssaySessionSource *
assay_session_add_source (AssaySession       *self,
                          const char         *name,
                          const char         *kind,
                          const char         *url,
                          const char * const *tables,
                          const char         *description)
{
  AssaySessionSource *source = NULL;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  g_return_val_if_fail (name != NULL && url != NULL, NULL);

  for (guint i = 0; i < self->sources->len && source == NULL; i++)
    if (g_str_equal (((AssaySessionSource *) g_ptr_array_index (self->sources, i))->name, name))
      source = g_ptr_array_index (self->sources, i);
  if (source == NULL)
    {
      source = g_new0 (AssaySessionSource, 1);
      source->name = g_strdup (name);
      g_ptr_array_add (self->sources, source);
    }
  g_free (source->kind);
  source->kind = g_strdup (kind != NULL ? kind : "");
  g_free (source->url);
  /* Whatever the caller passes, a password never reaches the record. */
  source->url = assay_source_url_strip_password (url);
  g_strfreev (source->tables);
  source->tables = tables != NULL && tables[0] != NULL ? g_strdupv ((char **) tables) : NULL;
  g_free (source->description);
  source->description = g_strdup (description);
  return source;
}

gboolean
assay_session_set_source_risk (AssaySession  *self,
                               const char    *name,
                               const char    *powers,
                               GError       **error)
{
  AssaySessionSource *source = NULL;
  g_autofree char *seal = NULL;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < self->sources->len && source == NULL; i++)
    if (g_str_equal (((AssaySessionSource *) g_ptr_array_index (self->sources, i))->name, name))
      source = g_ptr_array_index (self->sources, i);
  if (source == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("The session has no database named %s"), name);
      return FALSE;
    }
  if (powers != NULL)
    {
      const char *fields[] = { source->name, source->url, powers, NULL };

      seal = assay_approval_seal_fields ("accept-risk", fields, error);
      if (seal == NULL)
        return FALSE;
    }
  g_free (source->accepted_risk);
  source->accepted_risk = g_strdup (powers);
  g_free (source->risk_seal);
  source->risk_seal = g_steal_pointer (&seal);
  return TRUE;
}

const AssaySessionSource *
assay_session_record_source (AssaySession *self,
                             AssaySource  *source,
                             const char   *description)
{
  const AssaySessionSource *recorded;
  g_autofree char *powers = NULL;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  g_return_val_if_fail (ASSAY_IS_SOURCE (source), NULL);

  recorded = assay_session_add_source (self, assay_source_get_name (source),
                                       assay_source_kind_to_string (assay_source_get_kind (source)),
                                       assay_source_get_display_url (source), assay_source_get_tables (source),
                                       description);
  /* Powers are read when it connects; a source with powers connected only as accepted. */
  powers = assay_source_dup_powers (source);
  if (powers != NULL)
    {
      g_autoptr(GError) error = NULL;

      if (!assay_session_set_source_risk (self, recorded->name, powers, &error))
        g_warning ("%s", error->message);
    }
  return recorded;
}

void
assay_session_source_apply_risk (const AssaySessionSource *recorded,
                                 AssaySource              *source)
{
  g_return_if_fail (recorded != NULL);
  g_return_if_fail (ASSAY_IS_SOURCE (source));

  if (assay_session_source_risk_accepted (recorded))
    assay_source_set_accepted_powers (source, recorded->accepted_risk);
}

void
assay_session_apply_recorded_risk (AssaySession *self,
                                   AssaySource  *source)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (ASSAY_IS_SOURCE (source));

  for (guint i = 0; i < self->sources->len; i++)
    {
      const AssaySessionSource *recorded = g_ptr_array_index (self->sources, i);

      if (g_str_equal (recorded->name, assay_source_get_name (source)) &&
          g_strcmp0 (recorded->url, assay_source_get_display_url (source)) == 0)
        assay_session_source_apply_risk (recorded, source);
    }
}

gboolean
assay_session_source_risk_accepted (const AssaySessionSource *source)
{
  const char *fields[4];

  g_return_val_if_fail (source != NULL, FALSE);

  if (source->accepted_risk == NULL || source->risk_seal == NULL)
    return FALSE;
  fields[0] = source->name;
  fields[1] = source->url;
  fields[2] = source->accepted_risk;
  fields[3] = NULL;
  return assay_approval_check_fields ("accept-risk", fields, source->risk_seal);
}

gboolean
assay_session_remove_source (AssaySession *self,
                             const char   *name)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < self->sources->len; i++)
    if (g_str_equal (((AssaySessionSource *) g_ptr_array_index (self->sources, i))->name, name))
      {
        g_ptr_array_remove_index (self->sources, i);
        return TRUE;
      }
  return FALSE;
}

char *
assay_session_resolve (AssaySession *self,
                       const char   *relative)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);

  /* The record may come from someone else's machine: what it names must stay inside. */
  if (!assay_session_path_is_below (self->dir, relative))
    return NULL;
  return g_build_filename (self->dir, relative, NULL);
}

/* Copies PATH into DIR's data/ (as NAME; NULL: its own name) and returns the copy's path,
 * or NULL. Touches nothing but the file system, so it may run in a worker. */
static char *
assay_session_copy_into_session (const char    *dir,
                                 const char    *path,
                                 const char    *as_name,
                                 GCancellable  *cancellable,
                                 GError       **error)
{
  g_autofree char *name = NULL;
  g_autofree char *target = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *real = NULL;
  g_autofree char *relative = NULL;
  GStatBuf st;

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("“%s” is not a readable file"), path);
      return NULL;
    }
  /* A link given by the analyst names the file it points to: that file is copied, never
   * the link (which would dangle in the sandbox). */
  real = realpath (path, NULL);
  if (real == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("“%s” is not a readable file"), path);
      return NULL;
    }
  {
    g_autofree char *given = as_name != NULL ? g_strdup (as_name) : g_path_get_basename (path);

    /* The name the sandbox shows it under, which is what the model is told. */
    name = assay_kernel_session_data_name (given);
  }
  relative = g_build_filename ("data", name, NULL);
  if (!assay_session_dataset_name_is_plain (name) || !assay_session_path_is_below (dir, relative))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The session’s data folder is a symbolic link or holds one named “%s”; "
                     "nothing is copied through it"), name);
      return NULL;
    }
  data_dir = g_build_filename (dir, "data", NULL);
  g_mkdir_with_parents (data_dir, 0755);
  target = g_build_filename (data_dir, name, NULL);
  canonical = g_canonicalize_filename (real, NULL);

  /* The same file again (a resumed session hands its own copies back) needs no copy. */
  if (g_strcmp0 (canonical, target) != 0)
    {
      g_autofree char *partial = g_strdup_printf ("%s/.%s.XXXXXX", data_dir, name);
      g_autoptr(GFile) source = g_file_new_for_path (real);
      g_autoptr(GFile) destination = NULL;
      int fd;

      /* A copy, never a hard link: the session keeps the data it was asked about when the
       * original is edited or cut short (which faulted every reader of a mapped link).
       * GLib clones the blocks where the file system can (btrfs, XFS), else copies them.
       * It is written under a hidden name and renamed, so a copy cut short by a full disk
       * or a crash never stands in for the file. */
      fd = g_mkstemp_full (partial, O_RDWR | O_CLOEXEC, 0644);
      if (fd < 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("Cannot copy %s into the session: %s"), path, g_strerror (saved));
          return NULL;
        }
      close (fd);
      destination = g_file_new_for_path (partial);
      /* An SQLite database is copied as SQLite sees it: one consistent snapshot of what was
       * committed, its WAL's pages included, never pages torn by a program writing it. */
      if (assay_sqlite_file_is_database (real))
        {
          if (!assay_sqlite_file_backup (real, partial, cancellable, error))
            {
              g_unlink (partial);
              return NULL;
            }
        }
      else if (!g_file_copy (source, destination,
                             G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS,
                             cancellable, NULL, NULL, error))
        {
          g_unlink (partial);
          g_prefix_error (error, _("Cannot copy %s into the session: "), path);
          return NULL;
        }
      if (g_rename (partial, target) != 0)
        {
          int saved = errno;

          g_unlink (partial);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("Cannot copy %s into the session: %s"), path, g_strerror (saved));
          return NULL;
        }
    }
  return g_steal_pointer (&target);
}

static void
assay_session_copy_in_worker (GTask        *task,
                              gpointer      source,
                              gpointer      task_data,
                              GCancellable *cancellable)
{
  const char *const *args = task_data;
  GError *error = NULL;
  char *copy = assay_session_copy_into_session (args[0], args[1], NULL, cancellable, &error);
  FileIdentity *identity;

  if (copy == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* What it is, measured here so that add_dataset, on the owner's thread, need not read it. */
  identity = g_new0 (FileIdentity, 1);
  if (!assay_session_measure_file (copy, cancellable, identity, &error))
    {
      g_free (identity);
      g_free (copy);
      g_task_return_error (task, error);
      return;
    }
  g_object_set_data_full (G_OBJECT (task), "identity", identity, g_free);
  g_task_return_pointer (task, copy, g_free);
}

void
assay_session_copy_in_async (AssaySession        *self,
                             const char          *path,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  char **args;

  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_session_copy_in_async);
  args = g_new0 (char *, 3);
  args[0] = g_strdup (self->dir);
  args[1] = g_strdup (path);
  g_task_set_task_data (task, args, (GDestroyNotify) g_strfreev);
  g_task_run_in_thread (task, assay_session_copy_in_worker);
}

char *
assay_session_copy_in_finish (AssaySession  *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  FileIdentity *identity;
  char *copy;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  copy = g_task_propagate_pointer (G_TASK (result), error);
  identity = g_object_get_data (G_OBJECT (result), "identity");
  if (copy != NULL && identity != NULL)
    g_hash_table_replace (self->measured, g_strdup (copy), g_memdup2 (identity, sizeof *identity));
  return copy;
}

/* What the file at TARGET is: measured by copy_in, or now. */
static gboolean
assay_session_identify (AssaySession  *self,
                        const char    *target,
                        FileIdentity  *identity,
                        GError       **error)
{
  const FileIdentity *measured = g_hash_table_lookup (self->measured, target);

  if (measured != NULL)
    {
      *identity = *measured;
      g_hash_table_remove (self->measured, target);
      return TRUE;
    }
  return assay_session_measure_file (target, NULL, identity, error);
}

const AssaySessionDataset *
assay_session_add_dataset (AssaySession  *self,
                           const char    *path,
                           const char    *description,
                           GError       **error)
{
  return assay_session_add_dataset_as (self, path, NULL, description, error);
}

const AssaySessionDataset *
assay_session_add_dataset_as (AssaySession  *self,
                              const char    *path,
                              const char    *name_in_session,
                              const char    *description,
                              GError       **error)
{
  g_autofree char *name = NULL;
  g_autofree char *target = NULL;
  AssaySessionDataset *dataset = NULL;
  FileIdentity identity;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  target = assay_session_copy_into_session (self->dir, path, name_in_session, NULL, error);
  if (target == NULL)
    return NULL;
  name = g_path_get_basename (target);

  for (guint i = 0; i < self->datasets->len && dataset == NULL; i++)
    if (g_str_equal (((AssaySessionDataset *) g_ptr_array_index (self->datasets, i))->name, name))
      dataset = g_ptr_array_index (self->datasets, i);

  if (dataset != NULL)
    {
      if (description != NULL)
        {
          g_free (dataset->description);
          dataset->description = g_strdup (description);
        }
      /* A resumed session hands its own copy back: it is what was measured, unless it was
       * replaced (then it is what the session works with from now on). */
      if (dataset->sha256 == NULL || dataset->changed || g_hash_table_contains (self->measured, target))
        {
          if (!assay_session_identify (self, target, &identity, error))
            return NULL;
          assay_session_dataset_set_identity (dataset, &identity);
        }
      return dataset;
    }

  if (!assay_session_identify (self, target, &identity, error))
    return NULL;
  dataset = g_new0 (AssaySessionDataset, 1);
  dataset->name = g_strdup (name);
  dataset->path = g_build_filename ("data", name, NULL);
  dataset->description = g_strdup (description);
  assay_session_dataset_set_identity (dataset, &identity);
  g_ptr_array_add (self->datasets, dataset);
  return dataset;
}

GPtrArray *
assay_session_get_datasets (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->datasets;
}

GPtrArray *
assay_session_get_messages (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->messages;
}

void
assay_session_append_message (AssaySession    *self,
                              AssayLlmMessage *message)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (message != NULL);
  g_ptr_array_add (self->messages, message);
}

guint
assay_session_get_n_cells (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), 0);
  return self->cells->len;
}

GPtrArray *
assay_session_dup_unsealed_cells (AssaySession *self)
{
  GPtrArray *cells = g_ptr_array_new ();

  g_return_val_if_fail (ASSAY_IS_SESSION (self), cells);

  for (guint i = 0; i < assay_session_get_n_cells (self); i++)
    {
      AssaySessionCell *cell = assay_session_get_cell (self, i);

      if (assay_session_cell_succeeded (cell) && cell->decision != ASSAY_DECISION_HOSTED &&
          !assay_approval_check (cell))
        g_ptr_array_add (cells, cell);
    }
  return cells;
}

gboolean
assay_session_approve_cells (AssaySession  *self,
                             GPtrArray     *cells,
                             GError       **error)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), FALSE);
  g_return_val_if_fail (cells != NULL, FALSE);

  for (guint i = 0; i < cells->len; i++)
    if (!assay_approval_seal (g_ptr_array_index (cells, i), error))
      return FALSE;
  return assay_session_save (self, error);
}

gboolean
assay_session_ran_hosted (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), FALSE);
  for (guint i = 0; i < self->cells->len; i++)
    if (((AssaySessionCell *) g_ptr_array_index (self->cells, i))->decision == ASSAY_DECISION_HOSTED)
      return TRUE;
  return FALSE;
}

AssaySessionCell *
assay_session_get_cell (AssaySession *self,
                        guint         index)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  g_return_val_if_fail (index < self->cells->len, NULL);
  return g_ptr_array_index (self->cells, index);
}

AssaySessionCell *
assay_session_find_cell (AssaySession *self,
                         const char   *id)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  for (guint i = 0; i < self->cells->len; i++)
    {
      AssaySessionCell *cell = g_ptr_array_index (self->cells, i);

      if (g_strcmp0 (cell->id, id) == 0)
        return cell;
    }
  return NULL;
}

AssaySessionCell *
assay_session_add_cell (AssaySession     *self,
                        AssaySessionCell *cell)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  g_return_val_if_fail (cell != NULL, NULL);
  if (cell->proposed_at == 0)
    cell->proposed_at = g_get_real_time ();
  g_ptr_array_add (self->cells, cell);
  return cell;
}

static guint
assay_session_cell_number (const AssaySessionCell *cell)
{
  if (cell->id == NULL || cell->id[0] != 'c')
    return 0;
  return (guint) g_ascii_strtoull (cell->id + 1, NULL, 10);
}

char *
assay_session_next_cell_id (AssaySession *self)
{
  guint highest;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  highest = self->cell_id_floor;
  /* Interrupted cells keep their ids: their artifacts may be on disk under them. */
  for (guint i = 0; i < self->cells->len; i++)
    highest = MAX (highest, assay_session_cell_number (g_ptr_array_index (self->cells, i)));
  for (guint i = 0; i < self->interrupted_cells->len; i++)
    highest = MAX (highest, assay_session_cell_number (g_ptr_array_index (self->interrupted_cells, i)));
  return g_strdup_printf ("c%u", highest + 1);
}

void
assay_session_set_cell_id_floor (AssaySession *self,
                                 guint         floor)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  self->cell_id_floor = floor;
}

void
assay_session_record_result (AssaySession     *self,
                             AssaySessionCell *cell,
                             AssayCellResult  *result)
{
  JsonArray *outputs;
  GPtrArray *artifacts;

  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (cell != NULL);
  g_return_if_fail (ASSAY_IS_CELL_RESULT (result));

  cell->status = assay_cell_result_get_status (result);
  g_free (cell->status_reason);
  cell->status_reason = g_strdup (assay_cell_result_get_reason (result));
  cell->elapsed_ms = assay_cell_result_get_elapsed_ms (result);
  g_clear_pointer (&cell->checks, assay_cell_checks_free);
  cell->checks = assay_cell_checks_copy (assay_cell_result_get_checks (result));
  cell->finished_at = g_get_real_time ();

  outputs = assay_cell_result_get_outputs (result);
  json_array_unref (cell->outputs);
  cell->outputs = json_array_new ();
  for (guint i = 0; i < json_array_get_length (outputs); i++)
    json_array_add_element (cell->outputs, json_node_copy (json_array_get_element (outputs, i)));

  artifacts = assay_cell_result_get_artifacts (result);
  g_ptr_array_set_size (cell->artifacts, 0);
  for (guint i = 0; i < artifacts->len; i++)
    {
      AssayArtifact *artifact = g_ptr_array_index (artifacts, i);
      AssayArtifact *copy = g_new0 (AssayArtifact, 1);
      g_autofree char *prefix = g_strconcat (self->dir, G_DIR_SEPARATOR_S, NULL);

      copy->name = g_strdup (artifact->name);
      if (artifact->path != NULL && g_str_has_prefix (artifact->path, prefix))
        copy->path = g_strdup (artifact->path + strlen (prefix));
      else
        copy->path = g_strdup (artifact->path);
      copy->bytes = artifact->bytes;
      copy->mime = g_strdup (artifact->mime);
      copy->truncated = artifact->truncated;
      g_ptr_array_add (cell->artifacts, copy);
    }
}

guint
assay_session_get_n_steps (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), 0);
  return self->n_steps;
}

void
assay_session_finish_step (AssaySession *self)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  self->n_steps++;
  self->finished_messages = self->messages->len;
  self->finished_cells = self->cells->len;
}

void
assay_session_finish_question (AssaySession *self)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  self->finished_messages = self->messages->len;
}

GPtrArray *
assay_session_get_interrupted_cells (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->interrupted_cells;
}

void
assay_session_add_step_timing (AssaySession          *self,
                               const AssayStepTiming *timing)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (timing != NULL);
  g_array_append_val (self->timings, *timing);
}

GArray *
assay_session_get_step_timings (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->timings;
}

gboolean
assay_session_set_dataset_description (AssaySession *self,
                                       const char   *name,
                                       const char   *description)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < self->datasets->len; i++)
    {
      AssaySessionDataset *dataset = g_ptr_array_index (self->datasets, i);

      if (g_str_equal (dataset->name, name))
        {
          g_free (dataset->description);
          dataset->description = g_strdup (description);
          return TRUE;
        }
    }
  return FALSE;
}

/* ---- provenance ------------------------------------------------------------------------- */

const AssayProvenance *
assay_session_get_provenance (AssaySession *self,
                              guint         message)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);

  return g_hash_table_lookup (self->provenance, GUINT_TO_POINTER (message));
}

const AssayProvenance *
assay_session_trace_answer (AssaySession *self,
                            guint         message)
{
  g_autoptr(AssaySessionOutline) outline = NULL;
  g_autoptr(GArray) sources = NULL;
  const AssayLlmMessage *answer;
  AssayProvenance *provenance;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);

  if (message >= self->messages->len)
    return NULL;
  answer = g_ptr_array_index (self->messages, message);
  if (answer->role != ASSAY_LLM_ROLE_ASSISTANT || answer->tool_calls->len > 0)
    return NULL;

  /* The cells of the answer's question, in the order they ran. */
  sources = g_array_new (FALSE, FALSE, sizeof (AssayProvenanceSource));
  outline = assay_session_outline_new (self);
  for (guint q = 0; q < outline->questions->len; q++)
    {
      const AssayOutlineQuestion *question = g_ptr_array_index (outline->questions, q);
      gboolean holds = FALSE;

      for (guint j = 0; j < question->steps->len && !holds; j++)
        holds = ((AssayOutlineStep *) g_ptr_array_index (question->steps, j))->message == message;
      if (!holds)
        continue;
      for (guint j = 0; j < question->steps->len; j++)
        {
          const AssayOutlineStep *step = g_ptr_array_index (question->steps, j);

          for (guint k = 0; k < step->cells->len; k++)
            {
              const AssaySessionCell *cell = g_ptr_array_index (step->cells, k);
              AssayProvenanceSource source = { cell->id, cell->outputs, cell->model_read };

              if (cell->code != NULL)
                g_array_append_val (sources, source);
            }
        }
      break;
    }

  provenance = assay_provenance_trace (answer->text, -1,
                                       (const AssayProvenanceSource *) (gpointer) sources->data,
                                       sources->len);
  g_hash_table_replace (self->provenance, GUINT_TO_POINTER (message), provenance);
  return provenance;
}

void
assay_session_set_provenance (AssaySession    *self,
                              guint            message,
                              AssayProvenance *provenance)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (provenance != NULL);

  g_hash_table_replace (self->provenance, GUINT_TO_POINTER (message), provenance);
}

/* ---- runs again ------------------------------------------------------------------------- */

const char *
assay_session_get_rerun_of (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->rerun_of;
}

const char *
assay_session_get_rerun_of_title (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->rerun_of_title;
}

void
assay_session_set_rerun_of (AssaySession *self,
                            const char   *dir,
                            const char   *title)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_free (self->rerun_of);
  self->rerun_of = g_strdup (dir);
  g_free (self->rerun_of_title);
  self->rerun_of_title = g_strdup (title);
}

GPtrArray *
assay_session_get_reruns (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->reruns;
}

void
assay_session_add_rerun (AssaySession *self,
                         const char   *dir)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (dir != NULL);
  g_ptr_array_add (self->reruns, g_strdup (dir));
}

AssaySessionChange *
assay_session_change_copy (const AssaySessionChange *change)
{
  AssaySessionChange *copy = g_memdup2 (change, sizeof *change);

  copy->before_text = g_strdup (change->before_text);
  copy->after_text = g_strdup (change->after_text);
  copy->cell_id = g_strdup (change->cell_id);
  copy->label = g_strdup (change->label);
  copy->sentence = g_strdup (change->sentence);
  return copy;
}

void
assay_session_change_free (AssaySessionChange *change)
{
  if (change == NULL)
    return;
  g_free (change->before_text);
  g_free (change->after_text);
  g_free (change->cell_id);
  g_free (change->label);
  g_free (change->sentence);
  g_free (change);
}

gboolean
assay_session_change_percent (const AssaySessionChange *change,
                              double                   *percent)
{
  if (change->stale || change->before == 0 || !isfinite (change->before) || !isfinite (change->after))
    return FALSE;
  *percent = (change->after - change->before) / fabs (change->before) * 100;
  return TRUE;
}

GPtrArray *
assay_session_get_changes (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->changes;
}

void
assay_session_set_changes (AssaySession *self,
                           GPtrArray    *changes)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_ptr_array_set_size (self->changes, 0);
  for (guint i = 0; changes != NULL && i < changes->len; i++)
    g_ptr_array_add (self->changes, assay_session_change_copy (g_ptr_array_index (changes, i)));
}

const char *
assay_session_get_rewrite (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->rewrite;
}

void
assay_session_set_rewrite (AssaySession *self,
                           const char   *text)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_free (self->rewrite);
  self->rewrite = g_strdup (text);
}

GPtrArray *
assay_session_get_rerun_notes (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->rerun_notes;
}

void
assay_session_add_rerun_note (AssaySession *self,
                              const char   *note)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (note != NULL);
  g_ptr_array_add (self->rerun_notes, g_strdup (note));
}

/* ---- what was sent to the model ---------------------------------------------------------- */

gboolean
assay_session_record_request (AssaySession            *self,
                              guint                    step,
                              const char              *model,
                              const AssayLlmResponse  *response,
                              double                   cost,
                              GError                 **error)
{
  AssaySessionRequest *request;
  const guint8 *body;
  gsize length = 0;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), FALSE);
  g_return_val_if_fail (response != NULL, FALSE);

  if (response->request_body == NULL)
    return TRUE;
  body = g_bytes_get_data (response->request_body, &length);
  request = g_new0 (AssaySessionRequest, 1);
  request->number = self->requests->len + 1;
  request->step = step;
  request->host = g_strdup (response->request_host ? response->request_host : "?");
  request->model = g_strdup (model);
  request->sent_at = response->sent_at;
  request->bytes_out = (gint64) length;
  request->bytes_in = response->bytes_in;
  request->input_tokens = response->input_tokens;
  request->cached_input_tokens = response->cached_input_tokens;
  request->cache_write_tokens = response->cache_write_tokens;
  request->output_tokens = response->output_tokens;
  request->reasoning_tokens = response->reasoning_tokens;
  request->cost = cost >= 0 && isfinite (cost) ? cost : -1;
  request->mode = g_strdup (assay_privacy_mode_to_string (self->privacy_mode));
  request->sha256 = g_compute_checksum_for_data (G_CHECKSUM_SHA256, body, length);
  g_ptr_array_add (self->requests, request);

  /* The body, compressed, while the session's budget for them lasts (counted from the files
   * at the first request, not at every load). */
  if (self->requests_bytes < 0)
    {
      self->requests_bytes = 0;
      for (guint i = 0; i + 1 < self->requests->len; i++)
        {
          const AssaySessionRequest *kept = g_ptr_array_index (self->requests, i);
          g_autofree char *path = kept->file != NULL ? assay_session_resolve (self, kept->file) : NULL;
          GStatBuf st;

          if (path != NULL && g_stat (path, &st) == 0)
            self->requests_bytes += st.st_size;
        }
    }
  if (self->requests_bytes < ASSAY_SESSION_REQUESTS_MAX_BYTES)
    {
      g_autofree char *dir = g_build_filename (self->dir, "requests", NULL);
      g_autofree char *name = g_strdup_printf ("%04u.json.gz", request->number);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *partial = g_strconcat (path, ".part", NULL);
      g_autoptr(GBytes) compressed = NULL;
      g_autoptr(GZlibCompressor) compressor = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
      g_autoptr(GInputStream) raw = g_memory_input_stream_new_from_bytes (response->request_body);
      g_autoptr(GInputStream) converted = g_converter_input_stream_new (raw, G_CONVERTER (compressor));
      g_autoptr(GOutputStream) memory = g_memory_output_stream_new_resizable ();

      if (!assay_session_path_is_below (self->dir, "requests") && g_file_test (dir, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       _("The session’s requests folder is a symbolic link; nothing is written through it"));
          return FALSE;
        }
      if (g_mkdir_with_parents (dir, 0700) != 0 ||
          g_output_stream_splice (memory, converted,
                                  G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                                  NULL, error) < 0)
        {
          if (error != NULL && *error == NULL)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot create %s"), dir);
          return FALSE;
        }
      compressed = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (memory));
      if (!g_file_set_contents_full (partial, g_bytes_get_data (compressed, NULL), g_bytes_get_size (compressed),
                                     G_FILE_SET_CONTENTS_CONSISTENT, 0600, error) ||
          g_rename (partial, path) != 0)
        {
          g_unlink (partial);
          if (error != NULL && *error == NULL)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write %s"), path);
          return FALSE;
        }
      request->file = g_build_filename ("requests", name, NULL);
      self->requests_bytes += (gint64) g_bytes_get_size (compressed);
    }
  return TRUE;
}

GPtrArray *
assay_session_get_requests (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->requests;
}

GBytes *
assay_session_read_request_body (AssaySession              *self,
                                 const AssaySessionRequest *request,
                                 GError                   **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GInputStream) raw = NULL;
  g_autoptr(GInputStream) converted = NULL;
  g_autoptr(GOutputStream) memory = g_memory_output_stream_new_resizable ();
  g_autoptr(GZlibDecompressor) decompressor = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GBytes) body = NULL;
  g_autofree char *sha256 = NULL;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  g_return_val_if_fail (request != NULL, NULL);

  if (request->file == NULL || (path = assay_session_resolve (self, request->file)) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The body of request %u was not kept (the session's cap for them was reached)"),
                   request->number);
      return NULL;
    }
  /* As the record is opened: below the folder, no link followed, a regular file (a FIFO
   * planted there never blocks), at most what a gzip of the largest body can be. */
  {
    struct stat st;
    int fd = assay_session_path_open_below (self->dir, request->file, &st, error);

    if (fd < 0)
      return NULL;
    if (st.st_size > 64 * 1024 * 1024)
      {
        close (fd);
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The body of request %u is too large"),
                     request->number);
        return NULL;
      }
    raw = g_unix_input_stream_new (fd, TRUE);
  }
  converted = g_converter_input_stream_new (raw, G_CONVERTER (decompressor));
  /* A body is at most what a server takes: a bomb is not inflated past it. */
  {
    gssize total = 0, n;
    char buffer[65536];

    while ((n = g_input_stream_read (converted, buffer, sizeof buffer, NULL, error)) > 0)
      {
        total += n;
        if (total > 64 * 1024 * 1024 ||
            !g_output_stream_write_all (memory, buffer, (gsize) n, NULL, NULL, error))
          {
            if (error != NULL && *error == NULL)
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The body of request %u is too large"),
                           request->number);
            return NULL;
          }
      }
    if (n < 0)
      return NULL;
  }
  g_output_stream_close (memory, NULL, NULL);
  body = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (memory));
  sha256 = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, body);
  if (g_strcmp0 (sha256, request->sha256) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The body of request %u is not what was sent (its SHA-256 differs)"), request->number);
      return NULL;
    }
  return g_steal_pointer (&body);
}

double
assay_session_get_cost (AssaySession *self,
                        gint64       *input_tokens,
                        gint64       *output_tokens,
                        guint        *unpriced)
{
  AssayUsage usage;

  g_return_val_if_fail (ASSAY_IS_SESSION (self), 0);

  assay_usage_init_for_steps (&usage, self, 0, G_MAXUINT);
  if (input_tokens != NULL)
    *input_tokens = usage.input_tokens;
  if (output_tokens != NULL)
    *output_tokens = usage.output_tokens;
  if (unpriced != NULL)
    *unpriced = usage.n_unpriced;
  return usage.cost;
}

/* ---- privacy ----------------------------------------------------------------------------- */

AssayPrivacyMode
assay_session_get_privacy_mode (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), ASSAY_PRIVACY_FULL);
  return self->privacy_mode;
}

void
assay_session_set_privacy_mode (AssaySession     *self,
                                AssayPrivacyMode  mode)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  self->privacy_mode = mode;
}

GPtrArray *
assay_session_get_masked_columns (AssaySession *self)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), NULL);
  return self->masked;
}

gboolean
assay_session_is_column_masked (AssaySession *self,
                                const char   *dataset,
                                const char   *column)
{
  g_return_val_if_fail (ASSAY_IS_SESSION (self), FALSE);

  for (guint i = 0; i < self->masked->len; i++)
    {
      const AssaySessionMask *mask = g_ptr_array_index (self->masked, i);

      if (g_strcmp0 (mask->dataset, dataset) == 0 && g_strcmp0 (mask->column, column) == 0)
        return TRUE;
    }
  return FALSE;
}

void
assay_session_set_column_masked (AssaySession *self,
                                 const char   *dataset,
                                 const char   *column,
                                 gboolean      masked)
{
  g_return_if_fail (ASSAY_IS_SESSION (self));
  g_return_if_fail (dataset != NULL && column != NULL);

  for (guint i = 0; i < self->masked->len; i++)
    {
      const AssaySessionMask *mask = g_ptr_array_index (self->masked, i);

      if (g_str_equal (mask->dataset, dataset) && g_str_equal (mask->column, column))
        {
          if (!masked)
            g_ptr_array_remove_index (self->masked, i);
          return;
        }
    }
  if (masked)
    {
      AssaySessionMask *mask = g_new0 (AssaySessionMask, 1);

      mask->dataset = g_strdup (dataset);
      mask->column = g_strdup (column);
      g_ptr_array_add (self->masked, mask);
    }
}
