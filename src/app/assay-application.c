/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-App"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-application.h"
#include "assay-preferences.h"
#include "assay-window.h"

struct _AssayApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (AssayApplication, assay_application, ADW_TYPE_APPLICATION)

static AssayWindow *
assay_application_ensure_window (AssayApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL || !ASSAY_IS_WINDOW (window))
    window = GTK_WINDOW (assay_window_new (GTK_APPLICATION (self)));
  return ASSAY_WINDOW (window);
}

static void
assay_application_activate (GApplication *application)
{
  gtk_window_present (GTK_WINDOW (assay_application_ensure_window (ASSAY_APPLICATION (application))));
}

static void
assay_application_open (GApplication  *application,
                        GFile        **files,
                        int            n_files,
                        const char    *hint)
{
  AssayWindow *window = assay_application_ensure_window (ASSAY_APPLICATION (application));

  gtk_window_present (GTK_WINDOW (window));
  assay_window_add_files (window, files, (guint) n_files);
}

static void
assay_application_quit_action (GSimpleAction *action,
                               GVariant      *parameter,
                               gpointer       user_data)
{
  GApplication *application = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (application));

  /* Closing the windows first lets them save their state and close their sandboxes. */
  for (GList *l = g_list_copy (windows), *start = l; l != NULL || (g_list_free (start), FALSE); l = l->next)
    gtk_window_close (l->data);
  g_application_quit (application);
}

static void
assay_application_preferences_action (GSimpleAction *action,
                                      GVariant      *parameter,
                                      gpointer       user_data)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  const char *reason = window && ASSAY_IS_WINDOW (window)
    ? assay_window_get_backend_reason (ASSAY_WINDOW (window)) : NULL;

  gtk_window_present (GTK_WINDOW (assay_preferences_new (window, reason)));
}

static void
assay_application_about_action (GSimpleAction *action,
                                GVariant      *parameter,
                                gpointer       user_data)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  GtkWidget *about = adw_about_window_new ();

  g_object_set (about,
                "transient-for", window,
                "application-name", "Assay",
                "application-icon", "org.assay.Assay",
                "version", PACKAGE_VERSION,
                "license-type", GTK_LICENSE_GPL_3_0,
                "comments", _("Ask questions about your data; review and run the code a model writes, in a sandbox"),
                NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
assay_application_startup (GApplication *application)
{
  static const GActionEntry entries[] = {
    { "quit", assay_application_quit_action },
    { "preferences", assay_application_preferences_action },
    { "about", assay_application_about_action },
  };
  static const struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "app.preferences", { "<Control>comma", NULL } },
    { "win.new-session", { "<Control>n", NULL } },
    { "win.open-data", { "<Control>o", NULL } },
    { "win.connect-database", { "<Control><Shift>o", NULL } },
    { "win.run", { "<Control>Return", "<Control>KP_Enter", NULL } },
    { "win.stop", { "Escape", NULL } },
    { "win.toggle-sidebar", { "F9", NULL } },
    { "win.show-help-overlay", { "<Control>question", NULL } },
  };

  assay_app_ensure_resources ();
  G_APPLICATION_CLASS (assay_application_parent_class)->startup (application);

  g_action_map_add_action_entries (G_ACTION_MAP (application), entries, G_N_ELEMENTS (entries), application);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (application), accels[i].action, accels[i].accels);
}

static void
assay_application_class_init (AssayApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = assay_application_activate;
  app_class->open = assay_application_open;
  app_class->startup = assay_application_startup;
}

static void
assay_application_init (AssayApplication *self)
{
}

AssayApplication *
assay_application_new (void)
{
  return g_object_new (ASSAY_TYPE_APPLICATION,
                       "application-id", "org.assay.Assay",
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/org/assay/Assay",
                       NULL);
}
