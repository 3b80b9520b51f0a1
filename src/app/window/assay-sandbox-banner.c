/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Window"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-docker-backend.h"
#include "assay-docker-client.h"
#include "assay-revealer.h"
#include "assay-sandbox-banner.h"
#include "assay-sandbox-image.h"

struct _AssaySandboxBanner
{
  GtkWidget       parent_instance;

  GtkRevealer    *revealer;
  GtkLabel       *message_label;
  GtkWidget      *prepare_button;
  GtkWidget      *cancel_button;
  GtkProgressBar *progress_bar;

  GCancellable   *cancellable;      /* the banner's life */
  GCancellable   *build_cancellable;
};

G_DEFINE_FINAL_TYPE (AssaySandboxBanner, assay_sandbox_banner, GTK_TYPE_WIDGET)

enum { READY, N_SIGNALS };
static guint signals[N_SIGNALS];

/* Docker, when it answers; NULL otherwise (bubblewrap only). */
static AssayDockerClient *
assay_sandbox_banner_usable_docker (void)
{
  g_autoptr(AssayDockerBackend) backend = assay_docker_backend_new (NULL);
  g_autofree char *reason = NULL;

  if (!assay_sandbox_backend_probe (ASSAY_SANDBOX_BACKEND (backend), &reason, NULL))
    return NULL;
  return assay_docker_client_new (NULL);
}

static void
assay_sandbox_banner_check_worker (GTask        *task,
                                   gpointer      source_object,
                                   gpointer      task_data,
                                   GCancellable *cancellable)
{
  g_autoptr(AssaySandboxImage) image = assay_sandbox_image_new (NULL);
  g_autoptr(AssayDockerClient) docker = NULL;
  gboolean ready = assay_sandbox_image_has_tree (image);

  if (!ready && (docker = assay_sandbox_banner_usable_docker ()) != NULL)
    ready = assay_sandbox_image_has_docker (image, docker, cancellable);
  g_task_return_boolean (task, ready);
}

static void
assay_sandbox_banner_checked_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  AssaySandboxBanner *self = ASSAY_SANDBOX_BANNER (source);
  g_autoptr(GError) error = NULL;
  gboolean ready = g_task_propagate_boolean (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  gtk_revealer_set_reveal_child (self->revealer, !ready);
  if (ready)
    g_signal_emit (self, signals[READY], 0);
}

void
assay_sandbox_banner_check (AssaySandboxBanner *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_SANDBOX_BANNER (self));
  task = g_task_new (self, self->cancellable, assay_sandbox_banner_checked_cb, NULL);
  g_task_set_source_tag (task, assay_sandbox_banner_check);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, assay_sandbox_banner_check_worker);
}

gboolean
assay_sandbox_banner_get_shown (AssaySandboxBanner *self)
{
  g_return_val_if_fail (ASSAY_IS_SANDBOX_BANNER (self), FALSE);
  return gtk_revealer_get_reveal_child (self->revealer);
}

typedef struct
{
  GWeakRef  banner;
  double    fraction;
  char     *message;
} Progress;

static gboolean
assay_sandbox_banner_show_progress_cb (gpointer user_data)
{
  Progress *progress = user_data;
  g_autoptr(AssaySandboxBanner) self = g_weak_ref_get (&progress->banner);

  if (self != NULL)
    {
      gtk_progress_bar_set_fraction (self->progress_bar, CLAMP (progress->fraction, 0.0, 1.0));
      gtk_progress_bar_set_text (self->progress_bar, progress->message);
    }
  return G_SOURCE_REMOVE;
}

static void
assay_sandbox_banner_progress_free (Progress *progress)
{
  g_weak_ref_clear (&progress->banner);
  g_free (progress->message);
  g_free (progress);
}

/* Called in the worker: hand the numbers to the main loop. */
static void
assay_sandbox_banner_build_progress (double      fraction,
                                     const char *message,
                                     gpointer    user_data)
{
  Progress *progress = g_new0 (Progress, 1);

  g_weak_ref_init (&progress->banner, user_data);
  progress->fraction = fraction;
  progress->message = g_strdup (message);
  g_main_context_invoke_full (NULL, G_PRIORITY_DEFAULT, assay_sandbox_banner_show_progress_cb, progress,
                              (GDestroyNotify) assay_sandbox_banner_progress_free);
}

static void
assay_sandbox_banner_build_worker (GTask        *task,
                                   gpointer      source_object,
                                   gpointer      task_data,
                                   GCancellable *cancellable)
{
  g_autoptr(AssaySandboxImage) image = assay_sandbox_image_new (NULL);
  g_autoptr(AssayDockerClient) docker = assay_sandbox_banner_usable_docker ();
  g_autoptr(GError) error = NULL;

  if (assay_sandbox_image_build (image,
                                 docker,
                                 assay_sandbox_banner_build_progress,
                                 source_object,
                                 cancellable,
                                 &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
assay_sandbox_banner_set_building (AssaySandboxBanner *self,
                                   gboolean            building)
{
  gtk_widget_set_visible (self->prepare_button, !building);
  gtk_widget_set_visible (self->cancel_button, building);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), building);
}

static void
assay_sandbox_banner_built_cb (GObject      *source,
                               GAsyncResult *result,
                               gpointer      user_data)
{
  AssaySandboxBanner *self = ASSAY_SANDBOX_BANNER (source);
  g_autoptr(GError) error = NULL;

  g_clear_object (&self->build_cancellable);
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (gtk_widget_in_destruction (GTK_WIDGET (self)))
        return;
      assay_sandbox_banner_set_building (self, FALSE);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        gtk_label_set_text (self->message_label, _("Preparing the sandbox was cancelled."));
      else
        {
          g_autofree char *text = g_strdup_printf (_("The sandbox could not be prepared: %s"), error->message);

          gtk_label_set_text (self->message_label, text);
        }
      return;
    }
  assay_sandbox_banner_set_building (self, FALSE);
  gtk_revealer_set_reveal_child (self->revealer, FALSE);
  g_signal_emit (self, signals[READY], 0);
}

static void
assay_sandbox_banner_prepare_action (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *parameter)
{
  AssaySandboxBanner *self = ASSAY_SANDBOX_BANNER (widget);
  g_autoptr(GTask) task = NULL;

  if (self->build_cancellable != NULL)
    return;
  self->build_cancellable = g_cancellable_new ();
  assay_sandbox_banner_set_building (self, TRUE);
  gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
  gtk_progress_bar_set_text (self->progress_bar, _("Starting…"));
  gtk_label_set_text (self->message_label, _("Preparing the sandbox…"));
  task = g_task_new (self, self->build_cancellable, assay_sandbox_banner_built_cb, NULL);
  g_task_set_source_tag (task, assay_sandbox_banner_prepare_action);
  g_task_run_in_thread (task, assay_sandbox_banner_build_worker);
}

static void
assay_sandbox_banner_cancel_action (GtkWidget  *widget,
                                    const char *action_name,
                                    GVariant   *parameter)
{
  AssaySandboxBanner *self = ASSAY_SANDBOX_BANNER (widget);

  if (self->build_cancellable != NULL)
    g_cancellable_cancel (self->build_cancellable);
}

static void
assay_sandbox_banner_dispose (GObject *object)
{
  AssaySandboxBanner *self = ASSAY_SANDBOX_BANNER (object);
  GtkWidget *child;

  g_cancellable_cancel (self->cancellable);
  if (self->build_cancellable != NULL)
    g_cancellable_cancel (self->build_cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_SANDBOX_BANNER);
  /* The template's root box is not a bound child: unparent it too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (assay_sandbox_banner_parent_class)->dispose (object);
}

static void
assay_sandbox_banner_finalize (GObject *object)
{
  AssaySandboxBanner *self = ASSAY_SANDBOX_BANNER (object);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->build_cancellable);
  G_OBJECT_CLASS (assay_sandbox_banner_parent_class)->finalize (object);
}

static void
assay_sandbox_banner_class_init (AssaySandboxBannerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_sandbox_banner_dispose;
  object_class->finalize = assay_sandbox_banner_finalize;

  signals[READY] = g_signal_new ("ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-sandbox-banner.ui");
  gtk_widget_class_bind_template_child (widget_class, AssaySandboxBanner, revealer);
  gtk_widget_class_bind_template_child (widget_class, AssaySandboxBanner, message_label);
  gtk_widget_class_bind_template_child (widget_class, AssaySandboxBanner, prepare_button);
  gtk_widget_class_bind_template_child (widget_class, AssaySandboxBanner, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, AssaySandboxBanner, progress_bar);
  gtk_widget_class_install_action (widget_class, "banner.prepare", NULL, assay_sandbox_banner_prepare_action);
  gtk_widget_class_install_action (widget_class, "banner.cancel", NULL, assay_sandbox_banner_cancel_action);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
assay_sandbox_banner_init (AssaySandboxBanner *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  assay_revealer_hide_child_when_closed (self->revealer);
  self->cancellable = g_cancellable_new ();
}

GtkWidget *
assay_sandbox_banner_new (void)
{
  return g_object_new (ASSAY_TYPE_SANDBOX_BANNER, NULL);
}
