/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "assay-bwrap-backend.h"
#include "assay-sandbox-seccomp.h"

#define SANDBOX_UID "1000"
#define SANDBOX_GID "1000"
/* When Assay runs as root (CI does), bubblewrap itself runs as this unprivileged user, so
 * that nothing in the sandbox has a privileged uid anywhere, not even outside it. */
#define UNPRIVILEGED_HOST_ID 65534
#define STDERR_TAIL (64 * 1024)
#define ROOTFS_FD 3
#define DATA_FD 4
#define SECCOMP_FD 5
/* Only while the child sets the tree up (see assay_bwrap_backend_hide_tree). */
#define TREE_LOWER_FD 6
#define TREE_EMPTY_FD 7
#define TREE_LAYERS "lowerdir=/proc/self/fd/6:/proc/self/fd/7"
/* /dev/shm is a tmpfs of its own, and without a memory cgroup nothing else would bound it. */
#define SHM_BYTES (64 * 1024 * 1024)

struct _AssayBwrapBackend
{
  GObject parent_instance;
};

static void assay_bwrap_backend_iface_init (AssaySandboxBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (AssayBwrapBackend, assay_bwrap_backend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ASSAY_TYPE_SANDBOX_BACKEND,
                                                      assay_bwrap_backend_iface_init))

/* ---- cgroups -------------------------------------------------------------------------- */

typedef enum
{
  CGROUP_NONE,
  CGROUP_V1,
  CGROUP_V2,
} CgroupKind;

typedef struct
{
  CgroupKind kind;
  char      *v2_dir;        /* the sandbox's cgroup (v2) */
  char      *v1_memory;     /* the sandbox's cgroups (v1) */
  char      *v1_pids;
  char      *v1_cpu;
  guint64    memory_bytes;  /* the limit it was given */
} Cgroup;

static char *
assay_bwrap_backend_own_cgroup_path (const char *controller)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/cgroup", &contents, NULL, NULL))
    return NULL;

  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], ":", 3);

      if (g_strv_length (fields) != 3)
        continue;
      if (controller == NULL && g_str_equal (fields[0], "0") && fields[1][0] == '\0')
        return g_strdup (fields[2]);
      if (controller != NULL)
        {
          g_auto(GStrv) names = g_strsplit (fields[1], ",", -1);
          if (g_strv_contains ((const char * const *) names, controller))
            return g_strdup (fields[2]);
        }
    }
  return NULL;
}

static gboolean
assay_bwrap_backend_write_file (const char *dir,
                                const char *name,
                                const char *value)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  int fd = g_open (path, O_WRONLY | O_CLOEXEC, 0);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = write (fd, value, strlen (value)) == (ssize_t) strlen (value);
  close (fd);
  return ok;
}

static guint64
assay_bwrap_backend_read_counter (const char *dir,
                                  const char *file,
                                  const char *key)
{
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;

  if (dir == NULL)
    return 0;
  path = g_build_filename (dir, file, NULL);
  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return 0;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], key) && lines[i][strlen (key)] == ' ')
      return g_ascii_strtoull (lines[i] + strlen (key) + 1, NULL, 10);
  return 0;
}

static char *
assay_bwrap_backend_make_v1_group (const char *controller,
                                   const char *name)
{
  g_autofree char *own = assay_bwrap_backend_own_cgroup_path (controller);
  g_autofree char *root = g_build_filename ("/sys/fs/cgroup", controller, NULL);
  char *dir;

  if (own == NULL || !g_file_test (root, G_FILE_TEST_IS_DIR))
    return NULL;
  dir = g_build_filename (root, own, name, NULL);
  if (g_mkdir (dir, 0755) != 0 && errno != EEXIST)
    {
      g_free (dir);
      return NULL;
    }
  return dir;
}

/* SIGKILLs what is in the cgroup folder DIR (nobody else's: only the sandbox's processes
 * were ever put there). */
static void
assay_bwrap_backend_kill_cgroup_procs (const char *dir)
{
  g_autofree char *procs_path = g_build_filename (dir, "cgroup.procs", NULL);
  g_autofree char *procs = NULL;

  /* cgroup v2 kills the whole group at once (Linux 5.14), however fast it forks. */
  assay_bwrap_backend_write_file (dir, "cgroup.kill", "1");
  if (g_file_get_contents (procs_path, &procs, NULL, NULL))
    {
      g_auto(GStrv) pids = g_strsplit (procs, "\n", -1);

      for (guint i = 0; pids[i] != NULL; i++)
        {
          guint64 pid;

          if (g_ascii_string_to_unsigned (pids[i], 10, 2, G_MAXINT32, &pid, NULL))
            kill ((pid_t) pid, SIGKILL);
        }
    }
}

/* A sandbox at its memory limit with a fork bomb inside dies slowly: each of its hundreds of
 * processes must get out of memory reclaim to take its SIGKILL, on the CPU share the limit
 * leaves them (over two minutes, measured). Killed first, then loosened (no CPU quota, twice
 * the memory), they are gone in well under a second. */
static void
assay_bwrap_backend_cgroup_kill (Cgroup *cgroup)
{
  g_autofree char *memory = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                             MIN (cgroup->memory_bytes, G_MAXUINT64 / 2) * 2);
  const char *dirs[] = { cgroup->v2_dir, cgroup->v1_pids, cgroup->v1_memory, cgroup->v1_cpu };

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    if (dirs[i] != NULL)
      assay_bwrap_backend_kill_cgroup_procs (dirs[i]);
  if (cgroup->v2_dir != NULL)
    {
      assay_bwrap_backend_write_file (cgroup->v2_dir, "cpu.max", "max");
      assay_bwrap_backend_write_file (cgroup->v2_dir, "memory.max", memory);
    }
  if (cgroup->v1_cpu != NULL)
    assay_bwrap_backend_write_file (cgroup->v1_cpu, "cpu.cfs_quota_us", "-1");
  if (cgroup->v1_memory != NULL)
    {
      /* memory+swap first: the memory limit may never exceed it. */
      assay_bwrap_backend_write_file (cgroup->v1_memory, "memory.memsw.limit_in_bytes", memory);
      assay_bwrap_backend_write_file (cgroup->v1_memory, "memory.limit_in_bytes", memory);
    }
}

/* Removes the cgroup folder DIR, killing what is left in it first; whether it is gone. */
static gboolean
assay_bwrap_backend_remove_cgroup_dir (const char *dir)
{
  if (g_rmdir (dir) == 0 || errno == ENOENT)
    return TRUE;
  assay_bwrap_backend_kill_cgroup_procs (dir);
  return g_rmdir (dir) == 0 || errno == ENOENT;
}

/* Removes what can be removed of the sandbox's cgroups; TRUE once none is left. Processes
 * still inside are killed first: a fork bomb may outlive its PID namespace's end by a while. */
static gboolean
assay_bwrap_backend_cgroup_clear (Cgroup *cgroup)
{
  char **dirs[] = { &cgroup->v2_dir, &cgroup->v1_memory, &cgroup->v1_pids, &cgroup->v1_cpu };
  gboolean all_gone = TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      if (*dirs[i] == NULL)
        continue;
      if (assay_bwrap_backend_remove_cgroup_dir (*dirs[i]))
        g_clear_pointer (dirs[i], g_free);
      else
        all_gone = FALSE;
    }
  if (all_gone)
    cgroup->kind = CGROUP_NONE;
  return all_gone;
}

static gboolean
assay_bwrap_backend_cgroup_v2_available (char **parent_out)
{
  g_autofree char *own = assay_bwrap_backend_own_cgroup_path (NULL);
  g_autofree char *dir = NULL;
  g_autofree char *procs = NULL;

  if (own == NULL || !g_file_test ("/sys/fs/cgroup/cgroup.controllers", G_FILE_TEST_EXISTS))
    return FALSE;
  dir = g_build_filename ("/sys/fs/cgroup", own, NULL);
  procs = g_build_filename (dir, "cgroup.procs", NULL);
  /* A delegated subtree: we may create children and move processes. */
  if (access (dir, W_OK) != 0 || access (procs, W_OK) != 0)
    return FALSE;
  if (parent_out)
    *parent_out = g_steal_pointer (&dir);
  return TRUE;
}

static gboolean
assay_bwrap_backend_cgroup_create (Cgroup                   *cgroup,
                                   const char               *name,
                                   const AssaySandboxLimits *limits)
{
  g_autofree char *parent = NULL;
  g_autofree char *value = NULL;

  memset (cgroup, 0, sizeof *cgroup);
  cgroup->memory_bytes = limits->memory_bytes;

  if (assay_bwrap_backend_cgroup_v2_available (&parent))
    {
      /* Ask for the controllers in the subtree; fails harmlessly when already on or when the
       * parent still has processes (then limits stay on rlimits). */
      assay_bwrap_backend_write_file (parent, "cgroup.subtree_control", "+memory +pids +cpu");
      cgroup->v2_dir = g_build_filename (parent, name, NULL);
      if (g_mkdir (cgroup->v2_dir, 0755) != 0 && errno != EEXIST)
        {
          g_clear_pointer (&cgroup->v2_dir, g_free);
          goto v1;
        }
      value = g_strdup_printf ("%" G_GUINT64_FORMAT, limits->memory_bytes);
      if (!assay_bwrap_backend_write_file (cgroup->v2_dir, "memory.max", value))
        {
          g_rmdir (cgroup->v2_dir);
          g_clear_pointer (&cgroup->v2_dir, g_free);
          goto v1;
        }
      assay_bwrap_backend_write_file (cgroup->v2_dir, "memory.swap.max", "0");
      g_free (value);
      value = g_strdup_printf ("%u", limits->pids);
      assay_bwrap_backend_write_file (cgroup->v2_dir, "pids.max", value);
      g_free (value);
      value = g_strdup_printf ("%u 100000", (guint) ceil (limits->cpus * 100000));
      assay_bwrap_backend_write_file (cgroup->v2_dir, "cpu.max", value);
      cgroup->kind = CGROUP_V2;
      return TRUE;
    }

v1:
  if (geteuid () != 0)
    return FALSE;

  cgroup->v1_memory = assay_bwrap_backend_make_v1_group ("memory", name);
  cgroup->v1_pids = assay_bwrap_backend_make_v1_group ("pids", name);
  cgroup->v1_cpu = assay_bwrap_backend_make_v1_group ("cpu", name);
  if (cgroup->v1_memory == NULL || cgroup->v1_pids == NULL)
    {
      assay_bwrap_backend_cgroup_clear (cgroup);
      return FALSE;
    }

  g_free (value);
  value = g_strdup_printf ("%" G_GUINT64_FORMAT, limits->memory_bytes);
  if (!assay_bwrap_backend_write_file (cgroup->v1_memory, "memory.limit_in_bytes", value))
    {
      assay_bwrap_backend_cgroup_clear (cgroup);
      return FALSE;
    }
  assay_bwrap_backend_write_file (cgroup->v1_memory, "memory.memsw.limit_in_bytes", value);
  assay_bwrap_backend_write_file (cgroup->v1_memory, "memory.swappiness", "0");
  g_free (value);
  value = g_strdup_printf ("%u", limits->pids);
  assay_bwrap_backend_write_file (cgroup->v1_pids, "pids.max", value);
  if (cgroup->v1_cpu)
    {
      g_free (value);
      assay_bwrap_backend_write_file (cgroup->v1_cpu, "cpu.cfs_period_us", "100000");
      value = g_strdup_printf ("%u", (guint) ceil (limits->cpus * 100000));
      assay_bwrap_backend_write_file (cgroup->v1_cpu, "cpu.cfs_quota_us", value);
    }
  cgroup->kind = CGROUP_V1;
  return TRUE;
}

static guint64
assay_bwrap_backend_cgroup_oom_kills (const Cgroup *cgroup)
{
  if (cgroup->kind == CGROUP_V2)
    return assay_bwrap_backend_read_counter (cgroup->v2_dir, "memory.events", "oom_kill");
  if (cgroup->kind == CGROUP_V1)
    return assay_bwrap_backend_read_counter (cgroup->v1_memory, "memory.oom_control", "oom_kill");
  return 0;
}

/* ---- the child's setup (runs between fork and exec: async-signal-safe calls only) ------- */

typedef struct
{
  char     procs[4][PATH_MAX];   /* cgroup.procs / tasks files to join */
  guint    n_procs;
  gboolean drop_root;
  struct rlimit as, nproc, fsize, cpu, core;
  gboolean set_as, set_nproc;
  gboolean hide_tree;
  char     tree[PATH_MAX];       /* the image tree, absolute, no links */
  char     uid_map[64], gid_map[64];
} ChildSetup;

static gboolean
assay_bwrap_backend_write_all (const char *path,
                               const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = write (fd, text, strlen (text)) == (ssize_t) strlen (text);
  close (fd);
  return ok;
}

/* A bind mount shows in /proc/self/mountinfo the folder it came from within its filesystem,
 * and the image tree's names the user when it lives in their home. So bubblewrap is handed
 * an overlay instead, whose root is its own ("/") and whose layers are named by descriptor
 * (/proc/self/fd/6:7): the tree, and an empty read-only tmpfs (an overlay without an upper
 * layer needs two). Both are mounted over the tree's own path in a mount namespace of the
 * child's, in a user namespace that maps only its own uid. Where any step is refused (no
 * unprivileged user namespaces, no overlayfs in them before Linux 5.11) the tree is bound
 * as it is: the sandbox then still works, and mountinfo names the folder. */
static void
assay_bwrap_backend_hide_tree (ChildSetup *setup)
{
  gboolean tmpfs = FALSE;
  int fd;

  /* Reachable by path, as bubblewrap must reach it; else leave everything as it is. */
  fd = open (setup->tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  close (fd);
  if (unshare (CLONE_NEWUSER | CLONE_NEWNS) != 0)
    return;
  /* Dropping root left the process undumpable, its /proc/self files root's. Without its
   * uid mapped, bubblewrap could make no namespace of its own. */
  prctl (PR_SET_DUMPABLE, 1, 0, 0, 0);
  if (!assay_bwrap_backend_write_all ("/proc/self/setgroups", "deny") ||
      !assay_bwrap_backend_write_all ("/proc/self/uid_map", setup->uid_map) ||
      !assay_bwrap_backend_write_all ("/proc/self/gid_map", setup->gid_map))
    _exit (126);
  /* From here on the tree is reopened by path in this namespace whatever happens. */
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    goto reopen;

  fd = open (setup->tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || dup2 (fd, TREE_LOWER_FD) < 0)
    goto reopen;
  close (fd);
  if (mount ("tmpfs", setup->tree, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
             "size=4k,nr_inodes=1,mode=0755") != 0)
    goto reopen;
  tmpfs = TRUE;
  fd = open (setup->tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || dup2 (fd, TREE_EMPTY_FD) < 0)
    goto reopen;
  close (fd);
  if (mount ("overlay", setup->tree, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, TREE_LAYERS) != 0)
    goto reopen;
  tmpfs = FALSE;

reopen:
  if (tmpfs)
    umount2 (setup->tree, MNT_DETACH);
  close (TREE_LOWER_FD);
  close (TREE_EMPTY_FD);
  fd = open (setup->tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || dup2 (fd, ROOTFS_FD) < 0)
    _exit (126);
  close (fd);
}

static void
assay_bwrap_backend_child_setup (gpointer user_data)
{
  ChildSetup *setup = user_data;

  for (guint i = 0; i < setup->n_procs; i++)
    {
      int fd = open (setup->procs[i], O_WRONLY | O_CLOEXEC);
      if (fd >= 0)
        {
          (void) !write (fd, "0", 1);
          close (fd);
        }
    }

  if (setup->set_as)
    setrlimit (RLIMIT_AS, &setup->as);
  if (setup->set_nproc)
    setrlimit (RLIMIT_NPROC, &setup->nproc);
  setrlimit (RLIMIT_FSIZE, &setup->fsize);
  setrlimit (RLIMIT_CPU, &setup->cpu);
  setrlimit (RLIMIT_CORE, &setup->core);

  if (setup->drop_root)
    {
      gid_t gid = UNPRIVILEGED_HOST_ID;

      if (setgroups (1, &gid) != 0 || setgid (gid) != 0 || setuid (UNPRIVILEGED_HOST_ID) != 0)
        _exit (126);
    }

  if (setup->hide_tree)
    assay_bwrap_backend_hide_tree (setup);
}

/* Fills in SETUP's part for hiding TREE; FALSE when the path is too long to hold. */
static gboolean
assay_bwrap_backend_prepare_hide_tree (ChildSetup *setup,
                                       const char *tree)
{
  guint uid = setup->drop_root ? UNPRIVILEGED_HOST_ID : (guint) getuid ();
  guint gid = setup->drop_root ? UNPRIVILEGED_HOST_ID : (guint) getgid ();

  if (tree == NULL || strlen (tree) >= sizeof setup->tree)
    return FALSE;
  setup->hide_tree = TRUE;
  g_strlcpy (setup->tree, tree, sizeof setup->tree);
  g_snprintf (setup->uid_map, sizeof setup->uid_map, "%u %u 1", uid, uid);
  g_snprintf (setup->gid_map, sizeof setup->gid_map, "%u %u 1", gid, gid);
  return TRUE;
}

/* Whether bubblewrap still starts once the tree is hidden: a kernel or a security module
 * (Ubuntu's AppArmor restricts unprivileged user namespaces) may allow the namespaces and
 * refuse what follows. Asked once per tree and process, with a bubblewrap that runs `true`. */
static gboolean
assay_bwrap_backend_can_hide_tree (const char *tree)
{
  static GMutex mutex;
  static GHashTable *answers;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  ChildSetup *setup;
  gboolean works;
  const char *argv[] = {
    "bwrap", "--ro-bind-fd", G_STRINGIFY (ROOTFS_FD), "/",
    "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
    "--uid", SANDBOX_UID, "--gid", SANDBOX_GID, "/bin/true", NULL
  };

  g_mutex_lock (&mutex);
  if (answers == NULL)
    answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (g_hash_table_contains (answers, tree))
    {
      works = GPOINTER_TO_INT (g_hash_table_lookup (answers, tree));
      g_mutex_unlock (&mutex);
      return works;
    }

  setup = g_new0 (ChildSetup, 1);
  setup->drop_root = geteuid () == 0;
  setup->fsize.rlim_cur = setup->fsize.rlim_max = RLIM_INFINITY;
  setup->cpu.rlim_cur = setup->cpu.rlim_max = RLIM_INFINITY;
  works = assay_bwrap_backend_prepare_hide_tree (setup, tree);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_cwd (launcher, "/");
  g_subprocess_launcher_set_child_setup (launcher, assay_bwrap_backend_child_setup, setup, g_free);
  if (works)
    process = g_subprocess_launcher_spawnv (launcher, argv, NULL);
  works = process != NULL && g_subprocess_wait (process, NULL, NULL) &&
          g_subprocess_get_successful (process);
  if (!works)
    g_debug ("bubblewrap does not start with the tree hidden; it is bound as it is");
  g_hash_table_insert (answers, g_strdup (tree), GINT_TO_POINTER (works));
  g_mutex_unlock (&mutex);
  return works;
}

/* ---- the instance --------------------------------------------------------------------- */

#define ASSAY_TYPE_BWRAP_INSTANCE (assay_bwrap_instance_get_type ())
G_DECLARE_FINAL_TYPE (AssayBwrapInstance, assay_bwrap_instance, ASSAY, BWRAP_INSTANCE, AssaySandboxInstance)

struct _AssayBwrapInstance
{
  AssaySandboxInstance parent_instance;

  GSubprocess *process;
  Cgroup       cgroup;          /* under cgroup_mutex: kill and destroy may race */
  GMutex       cgroup_mutex;
  guint64      oom_kills_at_start;
  GMutex       mutex;
  GString     *stderr_tail;
  GThread     *stderr_thread;
  gboolean     destroyed;
};

G_DEFINE_FINAL_TYPE (AssayBwrapInstance, assay_bwrap_instance, ASSAY_TYPE_SANDBOX_INSTANCE)

static gpointer
assay_bwrap_backend_stderr_reader (gpointer user_data)
{
  AssayBwrapInstance *self = user_data;
  GInputStream *stream = g_subprocess_get_stderr_pipe (self->process);
  char buffer[4096];
  gssize n;

  while ((n = g_input_stream_read (stream, buffer, sizeof buffer, NULL, NULL)) > 0)
    {
      g_mutex_lock (&self->mutex);
      g_string_append_len (self->stderr_tail, buffer, n);
      if (self->stderr_tail->len > STDERR_TAIL)
        g_string_erase (self->stderr_tail, 0, self->stderr_tail->len - STDERR_TAIL);
      g_mutex_unlock (&self->mutex);
    }
  return NULL;
}

static GOutputStream *
assay_bwrap_instance_get_stdin (AssaySandboxInstance *instance)
{
  return g_subprocess_get_stdin_pipe (ASSAY_BWRAP_INSTANCE (instance)->process);
}

static GInputStream *
assay_bwrap_instance_get_stdout (AssaySandboxInstance *instance)
{
  return g_subprocess_get_stdout_pipe (ASSAY_BWRAP_INSTANCE (instance)->process);
}

static void
assay_bwrap_instance_kill (AssaySandboxInstance *instance)
{
  AssayBwrapInstance *self = ASSAY_BWRAP_INSTANCE (instance);

  /* bubblewrap's sandbox dies with it (--die-with-parent), and with the sandbox's PID 1
   * every process in its PID namespace; what its cgroup holds is killed too, and let go of
   * its limits so that it can die quickly. */
  g_subprocess_force_exit (self->process);
  g_mutex_lock (&self->cgroup_mutex);
  assay_bwrap_backend_cgroup_kill (&self->cgroup);
  g_mutex_unlock (&self->cgroup_mutex);
}

static gboolean
assay_bwrap_instance_wait (AssaySandboxInstance  *instance,
                           AssaySandboxExit      *exit_out,
                           GCancellable          *cancellable,
                           GError               **error)
{
  AssayBwrapInstance *self = ASSAY_BWRAP_INSTANCE (instance);

  memset (exit_out, 0, sizeof *exit_out);
  exit_out->exit_code = -1;

  if (!g_subprocess_wait (self->process, cancellable, error))
    return FALSE;

  exit_out->exited = TRUE;
  if (g_subprocess_get_if_signaled (self->process))
    exit_out->signal = g_subprocess_get_term_sig (self->process);
  else
    exit_out->exit_code = g_subprocess_get_exit_status (self->process);
  g_mutex_lock (&self->cgroup_mutex);
  exit_out->oom_killed = assay_bwrap_backend_cgroup_oom_kills (&self->cgroup) > self->oom_kills_at_start;
  g_mutex_unlock (&self->cgroup_mutex);
  return TRUE;
}

static void
assay_bwrap_instance_destroy (AssaySandboxInstance *instance)
{
  AssayBwrapInstance *self = ASSAY_BWRAP_INSTANCE (instance);

  if (self->destroyed)
    return;
  self->destroyed = TRUE;

  g_subprocess_force_exit (self->process);
  g_mutex_lock (&self->cgroup_mutex);
  assay_bwrap_backend_cgroup_kill (&self->cgroup);
  g_mutex_unlock (&self->cgroup_mutex);
  g_subprocess_wait (self->process, NULL, NULL);
  if (self->stderr_thread != NULL)
    g_clear_pointer (&self->stderr_thread, g_thread_join);
  /* The PID namespace is gone with bubblewrap, but its processes take a moment to die (many
   * of them after a fork bomb): kill what is left and remove the cgroups once empty. What
   * still cannot be removed is found by the next run's remove_leftovers. */
  g_mutex_lock (&self->cgroup_mutex);
  for (guint i = 0; i < 250 && !assay_bwrap_backend_cgroup_clear (&self->cgroup); i++)
    g_usleep (20 * 1000);
  g_mutex_unlock (&self->cgroup_mutex);
}

static char *
assay_bwrap_instance_dup_stderr_tail (AssaySandboxInstance *instance)
{
  AssayBwrapInstance *self = ASSAY_BWRAP_INSTANCE (instance);
  char *tail;

  g_mutex_lock (&self->mutex);
  tail = g_strndup (self->stderr_tail->str, self->stderr_tail->len);
  g_mutex_unlock (&self->mutex);
  return tail;
}

static void
assay_bwrap_instance_finalize (GObject *object)
{
  AssayBwrapInstance *self = ASSAY_BWRAP_INSTANCE (object);

  assay_bwrap_instance_destroy (ASSAY_SANDBOX_INSTANCE (self));
  g_clear_object (&self->process);
  g_string_free (self->stderr_tail, TRUE);
  g_mutex_clear (&self->mutex);
  g_mutex_clear (&self->cgroup_mutex);

  G_OBJECT_CLASS (assay_bwrap_instance_parent_class)->finalize (object);
}

static void
assay_bwrap_instance_class_init (AssayBwrapInstanceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AssaySandboxInstanceClass *instance_class = ASSAY_SANDBOX_INSTANCE_CLASS (klass);

  object_class->finalize = assay_bwrap_instance_finalize;
  instance_class->get_stdin = assay_bwrap_instance_get_stdin;
  instance_class->get_stdout = assay_bwrap_instance_get_stdout;
  instance_class->kill = assay_bwrap_instance_kill;
  instance_class->wait = assay_bwrap_instance_wait;
  instance_class->destroy = assay_bwrap_instance_destroy;
  instance_class->dup_stderr_tail = assay_bwrap_instance_dup_stderr_tail;
}

static void
assay_bwrap_instance_init (AssayBwrapInstance *self)
{
  g_mutex_init (&self->mutex);
  g_mutex_init (&self->cgroup_mutex);
  self->stderr_tail = g_string_new (NULL);
}

/* ---- spawning ------------------------------------------------------------------------- */

/* bubblewrap's --die-with-parent is PR_SET_PDEATHSIG, which fires when the *thread* that
 * forked it ends, not the process. Launches run in GTask's pool, whose threads come and go,
 * so every bubblewrap is forked from one thread that lives as long as the process. */

typedef struct
{
  GSubprocessLauncher *launcher;
  const char * const  *argv;
  GSubprocess         *process;
  GError              *error;
  gboolean             done;
} SpawnRequest;

static GMutex spawn_mutex;
static GCond spawn_cond;
static GAsyncQueue *spawn_queue;

static gpointer
assay_bwrap_backend_spawner_thread (gpointer data)
{
  for (;;)
    {
      SpawnRequest *request = g_async_queue_pop (spawn_queue);

      request->process = g_subprocess_launcher_spawnv (request->launcher, request->argv,
                                                       &request->error);
      g_mutex_lock (&spawn_mutex);
      request->done = TRUE;
      g_cond_broadcast (&spawn_cond);
      g_mutex_unlock (&spawn_mutex);
    }
  return NULL;
}

static GSubprocess *
assay_bwrap_backend_spawn_from_stable_thread (GSubprocessLauncher  *launcher,
                                              const char * const   *argv,
                                              GError              **error)
{
  static gsize initialized = 0;
  SpawnRequest request = { launcher, argv, NULL, NULL, FALSE };

  if (g_once_init_enter (&initialized))
    {
      spawn_queue = g_async_queue_new ();
      g_thread_unref (g_thread_new ("assay-bwrap-spawner", assay_bwrap_backend_spawner_thread, NULL));
      g_once_init_leave (&initialized, 1);
    }

  g_async_queue_push (spawn_queue, &request);
  g_mutex_lock (&spawn_mutex);
  while (!request.done)
    g_cond_wait (&spawn_cond, &spawn_mutex);
  g_mutex_unlock (&spawn_mutex);

  if (request.error != NULL)
    g_propagate_error (error, request.error);
  return request.process;
}

/* ---- the backend ---------------------------------------------------------------------- */

static const char *
assay_bwrap_backend_get_name (AssaySandboxBackend *backend)
{
  return "bwrap";
}

static void
assay_bwrap_backend_push (GPtrArray  *argv,
                          const char *first,
                          ...)
{
  va_list args;

  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
}

static void
assay_bwrap_backend_push_printf (GPtrArray  *argv,
                                 const char *format,
                                 ...) G_GNUC_PRINTF (2, 3);

static void
assay_bwrap_backend_push_printf (GPtrArray  *argv,
                                 const char *format,
                                 ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (argv, g_strdup_vprintf (format, args));
  va_end (args);
}

static guint
assay_bwrap_backend_count_own_processes (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint count = 0;
  uid_t uid = getuid ();

  if (dir == NULL)
    return 0;
  while ((name = g_dir_read_name (dir)))
    {
      g_autofree char *task_dir = NULL;
      GStatBuf st;

      if (!g_ascii_isdigit (name[0]))
        continue;
      task_dir = g_build_filename ("/proc", name, "task", NULL);
      if (g_stat (task_dir, &st) == 0 && st.st_uid == uid)
        {
          g_autoptr(GDir) tasks = g_dir_open (task_dir, 0, NULL);
          while (tasks && g_dir_read_name (tasks))
            count++;
        }
    }
  return count;
}

static GPtrArray *
assay_bwrap_backend_build_argv (const AssaySandboxSpec *spec,
                                gboolean                with_data)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  guint threads = MAX (1, (guint) ceil (spec->limits.cpus));

  assay_bwrap_backend_push (argv, "bwrap", NULL);
  assay_bwrap_backend_push_printf (argv,
                                   "--ro-bind-fd"); assay_bwrap_backend_push_printf (argv, "%d", ROOTFS_FD); assay_bwrap_backend_push (argv, "/", NULL);
  assay_bwrap_backend_push (argv, "--proc", "/proc", "--dev", "/dev", NULL);
  assay_bwrap_backend_push (argv,
                            "--size",
                            NULL); assay_bwrap_backend_push_printf (argv, "%u", (guint) SHM_BYTES);
  assay_bwrap_backend_push (argv, "--tmpfs", "/dev/shm", NULL);
  assay_bwrap_backend_push_printf (argv,
                                   "--seccomp"); assay_bwrap_backend_push_printf (argv, "%d", SECCOMP_FD);
  assay_bwrap_backend_push (argv,
                            "--size",
                            NULL); assay_bwrap_backend_push_printf (argv, "%" G_GUINT64_FORMAT, spec->limits.tmp_bytes);
  assay_bwrap_backend_push (argv, "--tmpfs", "/tmp", NULL);
  assay_bwrap_backend_push (argv,
                            "--size",
                            NULL); assay_bwrap_backend_push_printf (argv, "%" G_GUINT64_FORMAT, spec->limits.workspace_bytes);
  assay_bwrap_backend_push (argv, "--perms", "0755", "--tmpfs", "/workspace", NULL);
  if (with_data)
    {
      assay_bwrap_backend_push_printf (argv,
                                       "--ro-bind-fd"); assay_bwrap_backend_push_printf (argv, "%d", DATA_FD); assay_bwrap_backend_push (argv, "/data", NULL);
    }
  assay_bwrap_backend_push (argv,
                            "--unshare-all",           /* user, ipc, pid, net, uts, cgroup */
                            "--unshare-user",
                            "--disable-userns",        /* no nested user namespaces */
                            "--die-with-parent",
                            "--new-session",
                            "--cap-drop", "ALL",
                            "--uid", SANDBOX_UID,
                            "--gid", SANDBOX_GID,
                            "--hostname", "assay",
                            "--clearenv",
                            "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
                            "--setenv", "HOME", "/tmp",
                            "--setenv", "LANG", "C.UTF-8",
                            "--setenv", "MPLBACKEND", "Agg",
                            "--setenv", "MPLCONFIGDIR", "/tmp/matplotlib",
                            "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
                            NULL);
  /* Marks the sandbox's processes as this session's, as the label does for Docker. */
  assay_bwrap_backend_push (argv,
                            "--setenv",
                            "ASSAY_SESSION",
                            spec->session_id ? spec->session_id : "",
                            NULL);
  assay_bwrap_backend_push (argv,
                            "--setenv",
                            "OPENBLAS_NUM_THREADS",
                            NULL); assay_bwrap_backend_push_printf (argv, "%u", threads);
  assay_bwrap_backend_push (argv,
                            "--setenv",
                            "OMP_NUM_THREADS",
                            NULL); assay_bwrap_backend_push_printf (argv, "%u", threads);
  assay_bwrap_backend_push (argv, "--chdir", "/workspace", NULL);
  if (spec->command != NULL)
    for (guint i = 0; spec->command[i] != NULL; i++)
      assay_bwrap_backend_push (argv, spec->command[i], NULL);
  else
    assay_bwrap_backend_push (argv, "python3", "-I", "/opt/assay/kernel/assay_kernel.py", NULL);
  g_ptr_array_add (argv, NULL);
  return argv;
}

static AssaySandboxInstance *
assay_bwrap_backend_launch (AssaySandboxBackend     *backend,
                            const AssaySandboxSpec  *spec,
                            GCancellable            *cancellable,
                            GError                 **error)
{
  g_autoptr(AssayBwrapInstance) self = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = NULL;
  g_autofree char *kernel = NULL;
  g_autofree char *cgroup_name = NULL;
  g_autofree char *own_start = NULL;
  int seccomp_fd;
  ChildSetup *setup;
  int rootfs_fd;
  int data_fd = -1;

  if (spec->rootfs_dir == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("the sandbox image is not prepared (run “assay-cli sandbox build”)"));
      return NULL;
    }

  kernel = g_build_filename (spec->rootfs_dir, "opt/assay/kernel/assay_kernel.py", NULL);
  if (!g_file_test (kernel, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("the sandbox tree at %s is incomplete (run “assay-cli sandbox build”)"),
                   spec->rootfs_dir);
      return NULL;
    }

  /* Folders are handed over as open descriptors: when bubblewrap runs unprivileged it may
   * not be able to reach them by path (they can live under a private home). */
  rootfs_fd = g_open (spec->rootfs_dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
  if (rootfs_fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("cannot open the sandbox tree %s: %s"), spec->rootfs_dir, g_strerror (saved));
      return NULL;
    }
  if (spec->data_dir != NULL)
    data_fd = g_open (spec->data_dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);

  self = g_object_new (ASSAY_TYPE_BWRAP_INSTANCE, NULL);

  setup = g_new0 (ChildSetup, 1);
  /* The owner's pid and start time let a later run tell a crashed run's cgroups from those
   * of a run still alive (remove_leftovers). */
  own_start = assay_sandbox_read_process_start_time ("self");
  cgroup_name = g_strdup_printf ("assay-%s-%d-%s-%u", spec->session_id ? spec->session_id : "x",
                                 getpid (), own_start ? own_start : "0", g_random_int ());
  if (assay_bwrap_backend_cgroup_create (&self->cgroup, cgroup_name, &spec->limits))
    {
      const char *dirs[] = { self->cgroup.v2_dir, self->cgroup.v1_memory,
                             self->cgroup.v1_pids, self->cgroup.v1_cpu };

      for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
        if (dirs[i] != NULL)
          g_snprintf (setup->procs[setup->n_procs++], PATH_MAX, "%s/cgroup.procs", dirs[i]);
      self->oom_kills_at_start = assay_bwrap_backend_cgroup_oom_kills (&self->cgroup);
    }
  else
    {
      /* No cgroup: the address space bounds memory (a MemoryError then), and the process
       * count is counted per user, so leave room for the user's own processes. */
      setup->set_as = TRUE;
      setup->as.rlim_cur = setup->as.rlim_max = spec->limits.memory_bytes;
      setup->set_nproc = TRUE;
      setup->nproc.rlim_cur = setup->nproc.rlim_max =
        spec->limits.pids + (geteuid () == 0 ? 0 : assay_bwrap_backend_count_own_processes ());
    }
  setup->fsize.rlim_cur = setup->fsize.rlim_max = spec->limits.file_bytes;
  /* CPU time over the whole session; a single cell is bounded by its wall-clock timeout. */
  setup->cpu.rlim_cur = setup->cpu.rlim_max = 6 * 3600;
  setup->core.rlim_cur = setup->core.rlim_max = 0;
  setup->drop_root = geteuid () == 0;
  {
    g_autofree char *tree = realpath (spec->rootfs_dir, NULL);

    if (tree != NULL && assay_bwrap_backend_can_hide_tree (tree))
      assay_bwrap_backend_prepare_hide_tree (setup, tree);
  }

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  /* Nothing of ours crosses into the sandbox; bubblewrap itself gets a minimal env. */
  {
    const char *empty_env[] = { "PATH=/usr/bin:/bin", NULL };
    g_subprocess_launcher_set_environ (launcher, (char **) empty_env);
  }
  g_subprocess_launcher_set_cwd (launcher, "/");
  g_subprocess_launcher_take_fd (launcher, rootfs_fd, ROOTFS_FD);
  if (data_fd >= 0)
    g_subprocess_launcher_take_fd (launcher, data_fd, DATA_FD);
  g_subprocess_launcher_set_child_setup (launcher, assay_bwrap_backend_child_setup, setup, g_free);

  /* Without a memory cgroup, memory behind a memfd would escape the limit. */
  seccomp_fd = assay_sandbox_seccomp_filter_fd (self->cgroup.v2_dir == NULL &&
                                                self->cgroup.v1_memory == NULL, error);
  if (seccomp_fd < 0)
    {
      g_prefix_error (error, _("Cannot prepare the sandbox: "));
      assay_bwrap_backend_cgroup_clear (&self->cgroup);
      self->destroyed = TRUE;
      return NULL;
    }
  g_subprocess_launcher_take_fd (launcher, seccomp_fd, SECCOMP_FD);

  argv = assay_bwrap_backend_build_argv (spec, data_fd >= 0);
  self->process = assay_bwrap_backend_spawn_from_stable_thread (launcher,
                                                                (const char * const *) argv->pdata,
                                                                error);
  if (self->process == NULL)
    {
      assay_bwrap_backend_cgroup_clear (&self->cgroup);
      self->destroyed = TRUE;
      return NULL;
    }

  self->stderr_thread = g_thread_new ("assay-bwrap-stderr", assay_bwrap_backend_stderr_reader, self);
  return ASSAY_SANDBOX_INSTANCE (g_steal_pointer (&self));
}

static gboolean
assay_bwrap_backend_probe (AssaySandboxBackend  *backend,
                           char                **reason,
                           GCancellable         *cancellable)
{
  g_autofree char *bwrap = g_find_program_in_path ("bwrap");
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *err_text = NULL;
  ChildSetup *setup;
  const char *argv[] = {
    "bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
    "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
    "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
    "--uid", SANDBOX_UID, "--gid", SANDBOX_GID, "/usr/bin/true", NULL
  };

  if (bwrap == NULL)
    {
      if (reason)
        *reason = g_strdup (_("bubblewrap is not installed (install the “bubblewrap” package)"));
      return FALSE;
    }

  setup = g_new0 (ChildSetup, 1);
  setup->drop_root = geteuid () == 0;
  setup->fsize.rlim_cur = setup->fsize.rlim_max = RLIM_INFINITY;
  setup->cpu.rlim_cur = setup->cpu.rlim_max = RLIM_INFINITY;
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, "/");
  g_subprocess_launcher_set_child_setup (launcher, assay_bwrap_backend_child_setup, setup, g_free);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (process == NULL ||
      !g_subprocess_communicate_utf8 (process, NULL, cancellable, NULL, &err_text, &error))
    {
      if (reason)
        *reason = g_strdup_printf (_("bubblewrap could not be started: %s"), error->message);
      return FALSE;
    }

  if (!g_subprocess_get_successful (process))
    {
      if (reason)
        {
          g_strstrip (err_text);
          if (strstr (err_text, "namespace") || strstr (err_text, "Operation not permitted"))
            *reason = g_strdup_printf (_("bubblewrap cannot create user namespaces here (%s); "
                                       "check kernel.unprivileged_userns_clone and "
                                       "user.max_user_namespaces"), err_text);
          else
            *reason = g_strdup_printf (_("bubblewrap failed: %s"), err_text);
        }
      return FALSE;
    }

  return TRUE;
}

/* Whether the cgroup NAME ("assay-<session>-<pid>-<start>-<random>") belongs to a run of
 * Assay that is gone. Names without the start time (older runs) go by the pid alone. */
static gboolean
assay_bwrap_backend_cgroup_is_leftover (const char *name)
{
  g_auto(GStrv) fields = NULL;
  g_autofree char *start = NULL;
  guint n;
  guint64 pid;

  if (!g_str_has_prefix (name, "assay-"))
    return FALSE;
  fields = g_strsplit (name, "-", -1);
  n = g_strv_length (fields);
  if (n >= 5 && g_ascii_string_to_unsigned (fields[n - 3], 10, 1, G_MAXINT32, &pid, NULL))
    {
      start = assay_sandbox_read_process_start_time (fields[n - 3]);
      return start == NULL || !g_str_equal (start, fields[n - 2]);
    }
  if (n >= 4 && g_ascii_string_to_unsigned (fields[n - 2], 10, 1, G_MAXINT32, &pid, NULL))
    return kill ((pid_t) pid, 0) != 0 && errno == ESRCH;
  return FALSE;
}

static guint
assay_bwrap_backend_remove_leftover_cgroups_in (const char *parent)
{
  g_autoptr(GDir) dir = parent ? g_dir_open (parent, 0, NULL) : NULL;
  const char *name;
  guint removed = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;

      if (!assay_bwrap_backend_cgroup_is_leftover (name))
        continue;
      path = g_build_filename (parent, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK) &&
          assay_bwrap_backend_remove_cgroup_dir (path))
        removed++;
    }
  return removed;
}

/* The cgroups of earlier runs that crashed or were killed before removing them: where
 * assay_bwrap_backend_cgroup_create makes them, under our own cgroup in each hierarchy. */
static guint
assay_bwrap_backend_remove_leftovers (AssaySandboxBackend *backend,
                                      GCancellable        *cancellable)
{
  static const char * const controllers[] = { "memory", "pids", "cpu" };
  g_autofree char *v2_parent = NULL;
  guint removed = 0;

  if (assay_bwrap_backend_cgroup_v2_available (&v2_parent))
    removed += assay_bwrap_backend_remove_leftover_cgroups_in (v2_parent);
  for (guint i = 0; i < G_N_ELEMENTS (controllers); i++)
    {
      g_autofree char *own = assay_bwrap_backend_own_cgroup_path (controllers[i]);
      g_autofree char *parent = NULL;

      if (own == NULL)
        continue;
      parent = g_build_filename ("/sys/fs/cgroup", controllers[i], own, NULL);
      removed += assay_bwrap_backend_remove_leftover_cgroups_in (parent);
    }
  return removed;
}

static void
assay_bwrap_backend_iface_init (AssaySandboxBackendInterface *iface)
{
  iface->get_name = assay_bwrap_backend_get_name;
  iface->probe = assay_bwrap_backend_probe;
  iface->launch = assay_bwrap_backend_launch;
  iface->remove_leftovers = assay_bwrap_backend_remove_leftovers;
}

static void
assay_bwrap_backend_class_init (AssayBwrapBackendClass *klass)
{
}

static void
assay_bwrap_backend_init (AssayBwrapBackend *self)
{
}

AssayBwrapBackend *
assay_bwrap_backend_new (void)
{
  return g_object_new (ASSAY_TYPE_BWRAP_BACKEND, NULL);
}

char *
assay_bwrap_backend_describe_limits (AssayBwrapBackend *self)
{
  g_autofree char *parent = NULL;

  g_return_val_if_fail (ASSAY_IS_BWRAP_BACKEND (self), NULL);

  if (assay_bwrap_backend_cgroup_v2_available (&parent))
    return g_strdup_printf ("cgroup v2 (%s): memory, processes and CPU share", parent);
  if (geteuid () == 0 && g_file_test ("/sys/fs/cgroup/memory/memory.limit_in_bytes", G_FILE_TEST_EXISTS))
    return g_strdup ("cgroup v1 (as root): memory, processes and CPU share");
  return g_strdup ("rlimits (no delegated cgroup): address space, process count, file size, "
                   "CPU time; no CPU share");
}
