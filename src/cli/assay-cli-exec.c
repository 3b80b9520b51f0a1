/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Cli"

#include "config.h"

#include <glib/gi18n.h>

#include <gio/gunixinputstream.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "assay-cli.h"
#include "assay-kernel-channel.h"
#include "assay-kernel-session.h"
#include "assay-cell-output.h"

typedef struct
{
  GMainLoop       *loop;
  AssayCellResult *result;
  GError          *error;
  gboolean         started;
} Wait;

static void
assay_cli_exec_started_cb (GObject      *source,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  Wait *wait = user_data;

  wait->started = assay_kernel_session_start_finish (ASSAY_KERNEL_SESSION (source), result,
                                                     &wait->error);
  g_main_loop_quit (wait->loop);
}

static void
assay_cli_exec_executed_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = assay_kernel_session_execute_finish (ASSAY_KERNEL_SESSION (source), result,
                                                      &wait->error);
  g_main_loop_quit (wait->loop);
}

/* Human output: streams as they arrive, everything else once the cell is done. */
static void
assay_cli_exec_output_cb (AssayKernelSession *session,
                          const char         *cell_id,
                          JsonObject         *object,
                          gpointer            user_data)
{
  g_autoptr(AssayCellOutput) output = assay_cell_output_read_object (object);
  g_autofree char *text = NULL;

  switch (output->kind)
    {
    case ASSAY_CELL_OUTPUT_STREAM:
      assay_cli_print (output->is_stderr ? stderr : stdout, "%s", output->text);
      fflush (output->is_stderr ? stderr : stdout);
      break;
    case ASSAY_CELL_OUTPUT_ERROR:
      text = assay_cell_output_dup_text (output);
      assay_cli_print (stderr, "%s", text);
      break;
    case ASSAY_CELL_OUTPUT_RESULT:
    case ASSAY_CELL_OUTPUT_DISPLAY:
      if (output->png_base64 != NULL)
        printf ("[figure: image/png]\n");
      else if (output->plain != NULL)
        assay_cli_print (stdout, "%s\n", output->plain);
      break;
    case ASSAY_CELL_OUTPUT_OTHER:
    default:
      break;
    }
}

static void
assay_cli_exec_print_result_human (AssayCellResult *result,
                                   const char      *name)
{
  GPtrArray *artifacts = assay_cell_result_get_artifacts (result);
  AssayCellStatus status = assay_cell_result_get_status (result);

  for (guint i = 0; i < artifacts->len; i++)
    {
      AssayArtifact *artifact = g_ptr_array_index (artifacts, i);
      assay_cli_print (stderr, "artifact: %s → %s (%" G_GUINT64_FORMAT " bytes, %s%s)\n",
               artifact->name, artifact->path, artifact->bytes, artifact->mime,
               artifact->truncated ? ", cut" : "");
    }
  g_autofree char *checks = assay_cell_checks_describe (assay_cell_result_get_checks (result), FALSE);

  assay_cli_print (stderr, "── %s: %s in %" G_GINT64_FORMAT " ms%s%s\n",
           name, assay_cell_status_to_string (status),
           assay_cell_result_get_elapsed_ms (result),
           status != ASSAY_CELL_OK ? " — " : "",
           status != ASSAY_CELL_OK ? assay_cell_result_get_reason (result) : "");
  if (checks != NULL)
    assay_cli_print (stderr, _("   checks: %s\n"), checks);
}

static void
assay_cli_exec_print_result_json (AssayCellResult *result)
{
  g_autoptr(JsonObject) object = assay_cell_result_to_json (result);
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = json_to_string (node, FALSE);

  printf ("%s\n", text);
  fflush (stdout);
}

static char *
assay_cli_exec_read_cell (const char  *path,
                          GError     **error)
{
  char *contents = NULL;
  gsize len = 0;

  if (g_str_equal (path, "-"))
    {
      g_autoptr(GInputStream) in = g_unix_input_stream_new (STDIN_FILENO, FALSE);
      g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

      if (g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, error) < 0)
        return NULL;
      len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));
      contents = g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)), len);
    }
  else if (!g_file_get_contents (path, &contents, &len, error))
    return NULL;

  if (!g_utf8_validate (contents, len, NULL) || memchr (contents, '\0', len) != NULL)
    {
      g_free (contents);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is not UTF-8 text"), path);
      return NULL;
    }
  return contents;
}

int
assay_cli_exec (int   argc,
                char *argv[])
{
  g_autofree char *backend_name = NULL;
  g_auto(GStrv) data_files = NULL;
  g_autofree char *out_dir = NULL;
  g_auto(GStrv) cells = NULL;
  double timeout = 0;
  int memory_mb = 0;
  gboolean json = FALSE;
  gboolean replay = FALSE;
  gboolean no_checks = FALSE;
  GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend_name, N_("Sandbox backend: docker, bwrap or e2b"), "NAME" },
    { "data", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &data_files, N_("Make FILE readable at /data/<name>"), "FILE" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, N_("Seconds a cell may run (default 60)"), "SEC" },
    { "memory", 0, 0, G_OPTION_ARG_INT, &memory_mb, N_("Memory of the sandbox in MB (default 2048)"), "MB" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out_dir, N_("Store artifacts in DIR"), "DIR" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object per cell"), NULL },
    { "no-checks", 0, 0, G_OPTION_ARG_NONE, &no_checks,
      N_("Do not report what the cells read, merged and dropped"), NULL },
    { "replay-on-restart", 0, 0, G_OPTION_ARG_NONE, &replay,
      N_("When the sandbox must be restarted, run the successful cells again"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &cells, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("CELL.py… — run cells in one sandboxed session"));
  g_autoptr(GError) error = NULL;
  g_autoptr(AssaySandboxImage) image = NULL;
  g_autoptr(AssaySandboxSpec) spec = NULL;
  g_autoptr(AssaySandboxBackend) backend = NULL;
  g_autoptr(AssayKernelSession) session = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GPtrArray) codes = g_ptr_array_new_with_free_func (g_free);
  Wait wait = { 0 };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "assay-cli exec: %s\n", error->message);
      return 2;
    }
  if (cells == NULL || cells[0] == NULL)
    {
      fprintf (stderr, _("assay-cli exec: no cell given (a .py file, or - for standard input)\n"));
      return 2;
    }
  if (timeout < 0 || memory_mb < 0)
    {
      fprintf (stderr, _("assay-cli exec: --timeout and --memory must be positive\n"));
      return 2;
    }

  /* Read every cell first: a missing file should fail before a sandbox starts. */
  for (guint i = 0; cells[i] != NULL; i++)
    {
      char *code = assay_cli_exec_read_cell (cells[i], &error);

      if (code == NULL)
        {
          fprintf (stderr, "assay-cli exec: %s\n", error->message);
          return 2;
        }
      g_ptr_array_add (codes, code);
    }

  spec = assay_sandbox_spec_new ();
  if (timeout > 0)
    spec->limits.timeout_ms = (guint) (timeout * 1000);
  if (memory_mb > 0)
    spec->limits.memory_bytes = (guint64) memory_mb * 1024 * 1024;

  image = assay_sandbox_image_new (NULL);
  backend = assay_cli_choose_backend (backend_name, image, spec, &error);
  if (backend == NULL)
    {
      fprintf (stderr, "assay-cli exec: %s\n", error->message);
      return 1;
    }
  assay_sandbox_backend_remove_leftovers (backend, NULL);

  if (out_dir == NULL)
    {
      out_dir = g_dir_make_tmp ("assay-artifacts-XXXXXX", &error);
      if (out_dir == NULL)
        {
          fprintf (stderr, "assay-cli exec: %s\n", error->message);
          return 1;
        }
    }
  else if (g_mkdir_with_parents (out_dir, 0755) != 0)
    {
      fprintf (stderr, _("assay-cli exec: cannot create %s\n"), out_dir);
      return 1;
    }

  session = assay_kernel_session_new (backend, spec, out_dir);
  assay_kernel_session_set_replay_on_restart (session, replay);
  assay_kernel_session_set_checks (session, !no_checks);
  for (guint i = 0; data_files != NULL && data_files[i] != NULL; i++)
    if (!assay_kernel_session_add_dataset (session, data_files[i], &error))
      {
        fprintf (stderr, "assay-cli exec: %s\n", error->message);
        return 1;
      }

  if (!json)
    g_signal_connect (session, "output", G_CALLBACK (assay_cli_exec_output_cb), NULL);

  loop = g_main_loop_new (NULL, FALSE);
  wait.loop = loop;
  assay_kernel_session_start_async (session, NULL, assay_cli_exec_started_cb, &wait);
  g_main_loop_run (loop);
  if (!wait.started)
    {
      assay_cli_print (stderr,
                       _("assay-cli exec: the sandbox could not be started: %s\n"),
                       wait.error->message);
      g_clear_error (&wait.error);
      assay_kernel_session_close (session);
      return 1;
    }

  for (guint i = 0; i < codes->len; i++)
    {
      g_autoptr(AssayCellResult) result = NULL;

      assay_kernel_session_execute_async (session, g_ptr_array_index (codes, i), NULL,
                                          assay_cli_exec_executed_cb, &wait);
      g_main_loop_run (loop);
      result = g_steal_pointer (&wait.result);
      if (result == NULL)
        {
          assay_cli_print (stderr, "assay-cli exec: %s\n", wait.error->message);
          g_clear_error (&wait.error);
          assay_kernel_session_close (session);
          return 1;
        }
      if (json)
        assay_cli_exec_print_result_json (result);
      else
        assay_cli_exec_print_result_human (result, cells[i]);
    }

  assay_kernel_session_close (session);
  return 0;
}
