/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "assay-docker-client.h"
#include "assay-sandbox-image.h"

/* Bump when the way the tree is made changes, so old trees are not reused. */
#define BUILDER_VERSION "3"
#define DOCKER_REPO "assay-sandbox"

struct _AssaySandboxImage
{
  GObject  parent_instance;

  char    *recipe_dir;
  char    *store_dir;
  char    *base_hash;
  char    *hash;
  char    *docker_ref;
  char    *tree_dir;
  char    *base_tar;
  char   **packages;
};

G_DEFINE_FINAL_TYPE (AssaySandboxImage, assay_sandbox_image, G_TYPE_OBJECT)

static const char *kernel_files[] = {
  "assay_kernel.py",
  "assay_worker.py",
  "assay_frames.py",
  NULL
};

/* dpkg drops documentation, manuals, translations and headers: the analyst never needs
 * them and they are a third of the tree. */
static const char *mmdebstrap_options[] = {
  "--variant=essential",
  "--aptopt=APT::Install-Recommends \"false\"",
  "--dpkgopt=path-exclude=/usr/share/doc/*",
  "--dpkgopt=path-exclude=/usr/share/man/*",
  "--dpkgopt=path-exclude=/usr/share/info/*",
  "--dpkgopt=path-exclude=/usr/share/locale/*",
  "--dpkgopt=path-include=/usr/share/locale/locale.alias",
  "--dpkgopt=path-exclude=/usr/include/*",
  NULL
};

static const char *mirrors[] = {
  "deb http://deb.debian.org/debian bookworm main",
  "deb http://deb.debian.org/debian bookworm-updates main",
  "deb http://deb.debian.org/debian-security bookworm-security main",
  NULL
};

char *
assay_sandbox_find_recipe_dir (void)
{
  const char *env = g_getenv ("ASSAY_SANDBOX_DIR");
  g_autofree char *installed = g_build_filename (ASSAY_PKGDATADIR, "sandbox", NULL);
  g_autofree char *probe = NULL;

  if (env != NULL && *env != '\0')
    return g_strdup (env);

  probe = g_build_filename (ASSAY_SOURCE_SANDBOX_DIR, "packages.txt", NULL);
  if (g_file_test (probe, G_FILE_TEST_IS_REGULAR))
    return g_strdup (ASSAY_SOURCE_SANDBOX_DIR);

  return g_steal_pointer (&installed);
}

static char **
assay_sandbox_image_read_packages (const char *recipe_dir)
{
  g_autofree char *path = g_build_filename (recipe_dir, "packages.txt", NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) packages = g_ptr_array_new_with_free_func (g_free);

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;

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
  g_ptr_array_add (packages, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&packages), FALSE);
}

static void
assay_sandbox_image_compute_hashes (AssaySandboxImage *self)
{
  g_autoptr(GChecksum) base = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GChecksum) whole = NULL;

  g_checksum_update (base, (const guchar *) BUILDER_VERSION, -1);
  for (guint i = 0; mmdebstrap_options[i]; i++)
    g_checksum_update (base, (const guchar *) mmdebstrap_options[i], -1);
  for (guint i = 0; mirrors[i]; i++)
    g_checksum_update (base, (const guchar *) mirrors[i], -1);
  for (guint i = 0; self->packages && self->packages[i]; i++)
    {
      g_checksum_update (base, (const guchar *) self->packages[i], -1);
      g_checksum_update (base, (const guchar *) "\n", 1);
    }
  self->base_hash = g_strndup (g_checksum_get_string (base), 16);

  whole = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (whole, (const guchar *) self->base_hash, -1);
  for (guint i = 0; kernel_files[i]; i++)
    {
      g_autofree char *path = g_build_filename (self->recipe_dir, "kernel", kernel_files[i], NULL);
      g_autofree char *contents = NULL;
      gsize len = 0;

      g_checksum_update (whole, (const guchar *) kernel_files[i], -1);
      if (g_file_get_contents (path, &contents, &len, NULL))
        g_checksum_update (whole, (const guchar *) contents, len);
    }
  self->hash = g_strndup (g_checksum_get_string (whole), 16);
}

static void
assay_sandbox_image_finalize (GObject *object)
{
  AssaySandboxImage *self = ASSAY_SANDBOX_IMAGE (object);

  g_free (self->recipe_dir);
  g_free (self->store_dir);
  g_free (self->base_hash);
  g_free (self->hash);
  g_free (self->docker_ref);
  g_free (self->tree_dir);
  g_free (self->base_tar);
  g_strfreev (self->packages);

  G_OBJECT_CLASS (assay_sandbox_image_parent_class)->finalize (object);
}

static void
assay_sandbox_image_class_init (AssaySandboxImageClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_sandbox_image_finalize;
}

static void
assay_sandbox_image_init (AssaySandboxImage *self)
{
}

AssaySandboxImage *
assay_sandbox_image_new (const char *recipe_dir)
{
  AssaySandboxImage *self = g_object_new (ASSAY_TYPE_SANDBOX_IMAGE, NULL);
  g_autofree char *tree_name = NULL;
  g_autofree char *tar_name = NULL;

  self->recipe_dir = recipe_dir ? g_strdup (recipe_dir) : assay_sandbox_find_recipe_dir ();
  self->packages = assay_sandbox_image_read_packages (self->recipe_dir);
  assay_sandbox_image_compute_hashes (self);

  /* As root, bubblewrap runs as nobody, who cannot enter /root: keep the tree in the
   * system's state folder instead. */
  if (g_getenv ("ASSAY_SANDBOX_STORE") != NULL && *g_getenv ("ASSAY_SANDBOX_STORE") != '\0')
    self->store_dir = g_strdup (g_getenv ("ASSAY_SANDBOX_STORE"));   /* tests: a private store */
  else if (geteuid () == 0)
    self->store_dir = g_strdup ("/var/lib/assay/sandbox");
  else
    self->store_dir = g_build_filename (g_get_user_data_dir (), "assay", "sandbox", NULL);
  tree_name = g_strdup_printf ("tree-%s", self->hash);
  tar_name = g_strdup_printf ("rootfs-%s.tar", self->base_hash);
  self->tree_dir = g_build_filename (self->store_dir, tree_name, NULL);
  self->base_tar = g_build_filename (self->store_dir, tar_name, NULL);

  /* The sandbox reads the tree's path in /proc/self/mountinfo (a bind mount shows the folder
   * it came from): one in the home names the user. A tree built by root for this recipe is
   * used as it is, read-only, by everyone. */
  if (geteuid () != 0 && g_getenv ("ASSAY_SANDBOX_STORE") == NULL)
    {
      g_autofree char *system_tree = g_build_filename ("/var/lib/assay/sandbox", tree_name, NULL);
      g_autofree char *stamp = g_build_filename (system_tree, ".assay-complete", NULL);

      if (g_file_test (stamp, G_FILE_TEST_IS_REGULAR) && g_access (system_tree, R_OK | X_OK) == 0)
        {
          g_free (self->tree_dir);
          self->tree_dir = g_steal_pointer (&system_tree);
        }
    }
  self->docker_ref = g_strdup_printf (DOCKER_REPO ":%s", self->hash);
  return self;
}

const char *
assay_sandbox_image_get_recipe_dir (AssaySandboxImage *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_IMAGE (self), NULL);
  return self->recipe_dir;
}

const char *
assay_sandbox_image_get_base_tar (AssaySandboxImage *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_IMAGE (self), NULL);
  return self->base_tar;
}

const char *
assay_sandbox_image_get_base_hash (AssaySandboxImage *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_IMAGE (self), NULL);
  return self->base_hash;
}

const char *
assay_sandbox_image_get_hash (AssaySandboxImage *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_IMAGE (self), NULL);
  return self->hash;
}

const char *
assay_sandbox_image_get_docker_ref (AssaySandboxImage *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_IMAGE (self), NULL);
  return self->docker_ref;
}

const char *
assay_sandbox_image_get_tree_dir (AssaySandboxImage *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_IMAGE (self), NULL);
  return self->tree_dir;
}

gboolean
assay_sandbox_image_has_tree (AssaySandboxImage *self)
{
  g_autofree char *stamp = NULL;

  g_return_val_if_fail (ASSAY_IS_SANDBOX_IMAGE (self), FALSE);

  stamp = g_build_filename (self->tree_dir, ".assay-complete", NULL);
  return g_file_test (stamp, G_FILE_TEST_IS_REGULAR);
}

gboolean
assay_sandbox_image_has_docker (AssaySandboxImage *self,
                                AssayDockerClient *docker,
                                GCancellable      *cancellable)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_IMAGE (self), FALSE);
  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (docker), FALSE);

  return assay_docker_client_image_exists (docker, self->docker_ref, cancellable, NULL);
}

/* ---- building ------------------------------------------------------------------------- */

typedef struct
{
  AssayProgressFunc progress;
  gpointer          user_data;
  double            from;
  double            to;
} Stage;

static void
assay_sandbox_image_report (const Stage *stage,
                            double       fraction,
                            const char  *message)
{
  if (stage->progress)
    stage->progress (stage->from + (stage->to - stage->from) * CLAMP (fraction, 0, 1),
                     message, stage->user_data);
}

/* mmdebstrap's phases in the order it prints them, and how far along each one is. */
static const struct { const char *prefix; double fraction; const char *message; } phases[] = {
  { "I: running apt-get update", 0.05, "Reading the package lists" },
  { "I: downloading packages", 0.15, "Downloading packages" },
  { "I: extracting archives", 0.45, "Unpacking packages" },
  { "I: installing essential", 0.55, "Installing the base system" },
  { "I: installing remaining", 0.65, "Installing Python and the libraries" },
  { "I: creating tarball", 0.90, "Packing the root filesystem" },
  { "I: done", 1.0, "Root filesystem ready" },
};

static gboolean
assay_sandbox_image_run_logged (const char * const  *argv,
                                const Stage         *stage,
                                gboolean             parse_phases,
                                GCancellable        *cancellable,
                                GError             **error)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GString) tail = g_string_new (NULL);
  char *line;

  process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                     G_SUBPROCESS_FLAGS_STDERR_PIPE, error);
  if (process == NULL)
    return FALSE;

  lines = g_data_input_stream_new (g_subprocess_get_stderr_pipe (process));
  while ((line = g_data_input_stream_read_line_utf8 (lines, NULL, cancellable, NULL)))
    {
      if (parse_phases)
        for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
          if (g_str_has_prefix (line, phases[i].prefix))
            assay_sandbox_image_report (stage, phases[i].fraction, phases[i].message);
      g_string_append (tail, line);
      g_string_append_c (tail, '\n');
      if (tail->len > 8192)
        g_string_erase (tail, 0, tail->len - 8192);
      g_free (line);
    }

  if (g_cancellable_is_cancelled (cancellable))
    {
      g_subprocess_force_exit (process);
      g_subprocess_wait (process, NULL, NULL);
      return !g_cancellable_set_error_if_cancelled (cancellable, error);
    }

  if (!g_subprocess_wait_check (process, cancellable, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s failed:\n%s", argv[0], tail->str);
      return FALSE;
    }
  return TRUE;
}

static gboolean
assay_sandbox_image_build_base_tar (AssaySandboxImage  *self,
                                    const Stage        *stage,
                                    GCancellable       *cancellable,
                                    GError            **error)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *include = NULL;
  g_autofree char *partial = g_strconcat (self->base_tar, ".partial", NULL);
  g_autofree char *mmdebstrap = g_find_program_in_path ("mmdebstrap");

  if (mmdebstrap == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "mmdebstrap is not installed (install the “mmdebstrap” package)");
      return FALSE;
    }
  if (self->packages == NULL || self->packages[0] == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "no package list at %s/packages.txt", self->recipe_dir);
      return FALSE;
    }

  include = g_strjoinv (",", self->packages);
  g_ptr_array_add (argv, g_strdup (mmdebstrap));
  for (guint i = 0; mmdebstrap_options[i]; i++)
    g_ptr_array_add (argv, g_strdup (mmdebstrap_options[i]));
  g_ptr_array_add (argv, g_strdup_printf ("--include=%s", include));
  g_ptr_array_add (argv, g_strdup ("--format=tar"));
  g_ptr_array_add (argv, g_strdup ("bookworm"));
  g_ptr_array_add (argv, g_strdup (partial));
  for (guint i = 0; mirrors[i]; i++)
    g_ptr_array_add (argv, g_strdup (mirrors[i]));
  g_ptr_array_add (argv, NULL);

  assay_sandbox_image_report (stage, 0, "Building the root filesystem with mmdebstrap");
  g_unlink (partial);
  if (!assay_sandbox_image_run_logged ((const char * const *) argv->pdata, stage, TRUE, cancellable, error))
    {
      g_unlink (partial);
      return FALSE;
    }
  if (g_rename (partial, self->base_tar) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot store %s: %s", self->base_tar, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static gboolean
assay_sandbox_image_remove_tree (const char *path)
{
  const char *argv[] = { "rm", "-rf", "--one-file-system", "--", path, NULL };
  g_autoptr(GSubprocess) process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_NONE, NULL);

  return process != NULL && g_subprocess_wait_check (process, NULL, NULL);
}

static gboolean
assay_sandbox_image_copy_kernel (AssaySandboxImage  *self,
                                 const char         *tree,
                                 GError            **error)
{
  g_autofree char *target_dir = g_build_filename (tree, "opt", "assay", "kernel", NULL);

  if (g_mkdir_with_parents (target_dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot create %s: %s", target_dir, g_strerror (saved));
      return FALSE;
    }

  for (guint i = 0; kernel_files[i]; i++)
    {
      g_autofree char *from = g_build_filename (self->recipe_dir, "kernel", kernel_files[i], NULL);
      g_autofree char *to = g_build_filename (target_dir, kernel_files[i], NULL);
      g_autofree char *contents = NULL;
      gsize len;

      if (!g_file_get_contents (from, &contents, &len, error) ||
          !g_file_set_contents_full (to, contents, len, G_FILE_SET_CONTENTS_NONE, 0644, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
assay_sandbox_image_build_tree (AssaySandboxImage  *self,
                                const Stage        *stage,
                                GCancellable       *cancellable,
                                GError            **error)
{
  g_autofree char *partial = g_strconcat (self->tree_dir, ".partial", NULL);
  g_autofree char *stamp = NULL;
  const char *argv[] = {
    "tar", "-C", partial, "--no-same-owner", "--no-same-permissions",
    "--exclude=./dev/*", "-xf", self->base_tar, NULL
  };
  /* As root, keep ownership as packed (root), so the tree is not writable by the sandbox. */
  const char *argv_root[] = {
    "tar", "-C", partial, "--numeric-owner", "--exclude=./dev/*", "-xf", self->base_tar, NULL
  };

  assay_sandbox_image_report (stage, 0, "Unpacking the root filesystem for bubblewrap");
  assay_sandbox_image_remove_tree (partial);
  if (g_mkdir_with_parents (partial, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot create %s: %s", partial, g_strerror (saved));
      return FALSE;
    }
  if (!assay_sandbox_image_run_logged (geteuid () == 0 ? argv_root : argv, stage, FALSE, cancellable, error))
    {
      /* Cancelled or failed half-way: nothing half-unpacked stays behind. */
      assay_sandbox_image_remove_tree (partial);
      return FALSE;
    }
  assay_sandbox_image_report (stage, 0.9, "Adding the kernel");
  if (!assay_sandbox_image_copy_kernel (self, partial, error))
    return FALSE;
  /* Mount points: bubblewrap cannot create them in a read-only root. */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *mount_point = g_build_filename (partial, i == 0 ? "workspace" : "data", NULL);
      g_mkdir (mount_point, 0755);
    }

  stamp = g_build_filename (partial, ".assay-complete", NULL);
  if (!g_file_set_contents (stamp, self->hash, -1, error))
    return FALSE;
  assay_sandbox_image_remove_tree (self->tree_dir);
  if (g_rename (partial, self->tree_dir) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot store %s: %s", self->tree_dir, g_strerror (saved));
      return FALSE;
    }
  assay_sandbox_image_report (stage, 1, "Tree ready");
  return TRUE;
}

static guint64
assay_sandbox_image_directory_size (const char *path)
{
  const char *argv[] = { "du", "-sb", "--", path, NULL };
  g_autoptr(GSubprocess) process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                            G_SUBPROCESS_FLAGS_STDERR_SILENCE, NULL);
  g_autofree char *out = NULL;

  if (process == NULL || !g_subprocess_communicate_utf8 (process, NULL, NULL, &out, NULL, NULL))
    return 0;
  return g_ascii_strtoull (out ? out : "0", NULL, 10);
}

static void
assay_sandbox_image_import_progress (double      fraction,
                                     const char *message,
                                     gpointer    user_data)
{
  const Stage *stage = user_data;

  assay_sandbox_image_report (stage, fraction, message ? message : "Importing into Docker");
}

static gboolean
assay_sandbox_image_import_docker (AssaySandboxImage  *self,
                                   AssayDockerClient  *docker,
                                   const Stage        *stage,
                                   GCancellable       *cancellable,
                                   GError            **error)
{
  g_autoptr(GSubprocess) tar = NULL;
  const char *argv[] = {
    "tar", "-C", self->tree_dir, "--numeric-owner", "--owner=0", "--group=0",
    "--exclude=./.assay-complete", "-cf", "-", ".", NULL
  };
  guint64 total = assay_sandbox_image_directory_size (self->tree_dir);

  assay_sandbox_image_report (stage, 0, "Importing the image into Docker");
  tar = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, error);
  if (tar == NULL)
    return FALSE;

  if (!assay_docker_client_import_image (docker, g_subprocess_get_stdout_pipe (tar), total,
                                         DOCKER_REPO, self->hash,
                                         assay_sandbox_image_import_progress, (gpointer) stage,
                                         cancellable, error))
    {
      g_subprocess_force_exit (tar);
      g_subprocess_wait (tar, NULL, NULL);
      return FALSE;
    }

  if (!g_subprocess_wait_check (tar, cancellable, error))
    return FALSE;

  if (!assay_docker_client_tag_image (docker, self->docker_ref, DOCKER_REPO, "latest",
                                      cancellable, error))
    return FALSE;

  assay_sandbox_image_report (stage, 1, "Docker image ready");
  return TRUE;
}

/* Old trees and root filesystems of earlier recipes: each is hundreds of MB. */
static void
assay_sandbox_image_prune_stale (AssaySandboxImage *self)
{
  g_autoptr(GDir) dir = g_dir_open (self->store_dir, 0, NULL);
  g_autofree char *tree_name = g_path_get_basename (self->tree_dir);
  g_autofree char *tar_name = g_path_get_basename (self->base_tar);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)))
    {
      g_autofree char *path = NULL;

      if (g_str_equal (name, tree_name) || g_str_equal (name, tar_name))
        continue;
      if (!g_str_has_prefix (name, "tree-") && !g_str_has_prefix (name, "rootfs-"))
        continue;
      path = g_build_filename (self->store_dir, name, NULL);
      assay_sandbox_image_remove_tree (path);
    }
}

gboolean
assay_sandbox_image_build (AssaySandboxImage  *self,
                           AssayDockerClient  *docker,
                           AssayProgressFunc   progress,
                           gpointer            user_data,
                           GCancellable       *cancellable,
                           GError            **error)
{
  gboolean need_tree;
  gboolean need_docker;
  gboolean need_tar;
  Stage stage = { progress, user_data, 0, 0 };

  g_return_val_if_fail (ASSAY_IS_SANDBOX_IMAGE (self), FALSE);

  if (g_mkdir_with_parents (self->store_dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot create %s: %s", self->store_dir, g_strerror (saved));
      return FALSE;
    }

  need_docker = docker != NULL && !assay_sandbox_image_has_docker (self, docker, cancellable);
  need_tree = !assay_sandbox_image_has_tree (self);
  need_tar = need_tree && !g_file_test (self->base_tar, G_FILE_TEST_IS_REGULAR);

  if (!need_tree && !need_docker)
    {
      if (docker != NULL &&
          !assay_docker_client_tag_image (docker, self->docker_ref, DOCKER_REPO, "latest",
                                          cancellable, error))
        return FALSE;
      assay_sandbox_image_report (&(Stage) { progress, user_data, 0, 1 },
                                  1,
                                  "The sandbox image is up to date");
      return TRUE;
    }

  if (need_tar)
    {
      stage.from = 0;
      stage.to = 0.6;
      if (!assay_sandbox_image_build_base_tar (self, &stage, cancellable, error))
        return FALSE;
    }

  if (need_tree)
    {
      stage.from = need_tar ? 0.6 : 0;
      stage.to = need_docker ? 0.75 : 1;
      if (!assay_sandbox_image_build_tree (self, &stage, cancellable, error))
        return FALSE;
    }

  if (need_docker)
    {
      stage.from = need_tree ? 0.75 : 0;
      stage.to = 1;
      if (!assay_sandbox_image_import_docker (self, docker, &stage, cancellable, error))
        return FALSE;
    }

  assay_sandbox_image_prune_stale (self);
  return TRUE;
}
