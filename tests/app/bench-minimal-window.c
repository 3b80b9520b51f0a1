/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The baseline of bench-app: an empty AdwApplicationWindow opened the way Assay opens its
 * window (an AdwApplication, the window presented on activate), reporting its first frame as
 * Assay does with ASSAY_REPORT_FIRST_FRAME / ASSAY_QUIT_AFTER_FIRST_FRAME. */
#include <adwaita.h>

static void
painted_cb (GdkFrameClock *clock,
            GApplication  *application)
{
  g_signal_handlers_disconnect_by_func (clock, painted_cb, application);
  g_printerr ("assay-first-frame-us %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  if (g_strcmp0 (g_getenv ("ASSAY_QUIT_AFTER_FIRST_FRAME"), "1") == 0)
    g_application_quit (application);
}

static void
realize_cb (GtkWidget    *window,
            GApplication *application)
{
  g_signal_connect (gtk_widget_get_frame_clock (window), "after-paint", G_CALLBACK (painted_cb), application);
}

static void
activate_cb (GApplication *application)
{
  GtkWidget *window = adw_application_window_new (GTK_APPLICATION (application));

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_set_title (GTK_WINDOW (window), "Minimal");
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), adw_window_title_new ("Minimal", NULL));
  g_signal_connect_after (window, "realize", G_CALLBACK (realize_cb), application);
  gtk_window_present (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(AdwApplication) application = adw_application_new ("org.assay.BenchMinimal", G_APPLICATION_HANDLES_OPEN);

  g_signal_connect (application, "activate", G_CALLBACK (activate_cb), NULL);
  return g_application_run (G_APPLICATION (application), argc, argv);
}
