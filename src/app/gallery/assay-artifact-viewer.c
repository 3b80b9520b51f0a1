/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Gallery"

#include "config.h"

#include <glib/gi18n.h>

#include <adwaita.h>

#include "assay-app-types.h"
#include "assay-artifact-dnd.h"
#include "assay-artifact-viewer.h"
#include "assay-toast-queue.h"

struct _AssayArtifactViewer
{
  GtkWidget             parent_instance;

  GtkImage             *drag_icon;
  GtkLabel             *title;
  GtkWidget            *page_controls;
  GtkLabel             *page_label;
  GtkWidget            *zoom_controls;
  GtkButton            *zoom_label;
  GtkWidget            *copy_button;
  AdwToastOverlay      *toasts;
  AssayToastQueue      *toast_queue;
  GtkStack             *stack;
  AssayImageView       *image_view;
  AssayPdfView         *pdf_view;
  AssayCsvView         *csv_view;
  AssayFileView        *file_view;
  AdwStatusPage        *error_page;

  AssayArtifactItem    *item;
  const char           *view;          /* the stack page for the item */
  GCancellable         *cancellable;   /* saving */
  GtkFileChooserNative *chooser;
};

G_DEFINE_FINAL_TYPE (AssayArtifactViewer, assay_artifact_viewer, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char *
assay_artifact_viewer_view_for (AssayArtifactItem *item)
{
  const char *mime = assay_artifact_item_get_mime (item);
  const char *name = assay_artifact_item_get_name (item);
  g_autofree char *lower = g_ascii_strdown (name, -1);

  switch (assay_artifact_item_get_kind (item))
    {
    case ASSAY_ARTIFACT_KIND_FIGURE:
      return "image";
    case ASSAY_ARTIFACT_KIND_DOCUMENT:
      if (g_strcmp0 (mime, "application/pdf") == 0 || g_str_has_suffix (lower, ".pdf"))
        return "pdf";
      return "file";
    case ASSAY_ARTIFACT_KIND_TABLE:
      if (g_strcmp0 (mime, "text/csv") == 0 || g_strcmp0 (mime, "text/tab-separated-values") == 0 ||
          g_str_has_suffix (lower, ".csv") || g_str_has_suffix (lower, ".tsv") ||
          g_str_has_suffix (lower, ".tab"))
        return "csv";
      return "file";
    case ASSAY_ARTIFACT_KIND_OTHER:
    default:
      return "file";
    }
}

static const char *
assay_artifact_viewer_view_error (AssayArtifactViewer *self)
{
  if (g_strcmp0 (self->view, "image") == 0)
    return assay_image_view_get_error (self->image_view);
  if (g_strcmp0 (self->view, "pdf") == 0)
    return assay_pdf_view_get_error (self->pdf_view);
  if (g_strcmp0 (self->view, "csv") == 0)
    return assay_csv_view_get_error (self->csv_view);
  return NULL;
}

/* The one place that decides what the toolbar offers. */
static void
assay_artifact_viewer_update_actions (AssayArtifactViewer *self)
{
  gboolean is_image = g_strcmp0 (self->view, "image") == 0;
  gboolean is_pdf = g_strcmp0 (self->view, "pdf") == 0;
  const char *error = assay_artifact_viewer_view_error (self);
  gboolean zoomable = (is_image && assay_image_view_get_texture (self->image_view) != NULL) ||
                      (is_pdf && assay_pdf_view_get_n_pages (self->pdf_view) > 0);
  int page = assay_pdf_view_get_page (self->pdf_view);
  int n_pages = assay_pdf_view_get_n_pages (self->pdf_view);
  GtkWidget *widget = GTK_WIDGET (self);

  gtk_widget_action_set_enabled (widget, "viewer.save-as", self->item != NULL);
  gtk_widget_action_set_enabled (widget, "viewer.open-with", self->item != NULL);
  gtk_widget_action_set_enabled (widget, "viewer.copy", assay_artifact_viewer_get_texture (self) != NULL);
  gtk_widget_action_set_enabled (widget, "viewer.zoom-in", zoomable);
  gtk_widget_action_set_enabled (widget, "viewer.zoom-out", zoomable);
  gtk_widget_action_set_enabled (widget, "viewer.zoom-reset", zoomable);
  gtk_widget_action_set_enabled (widget, "viewer.zoom-fit", zoomable);
  gtk_widget_action_set_enabled (widget, "viewer.previous-page", is_pdf && page > 0);
  gtk_widget_action_set_enabled (widget, "viewer.next-page", is_pdf && page + 1 < n_pages);

  gtk_widget_set_visible (self->page_controls, is_pdf && n_pages > 1);
  gtk_widget_set_visible (self->zoom_controls, is_image || is_pdf);
  gtk_widget_set_visible (self->copy_button, is_image || is_pdf);

  if (is_pdf && n_pages > 0)
    {
      g_autofree char *text = g_strdup_printf ("%d / %d", page + 1, n_pages);

      gtk_label_set_text (self->page_label, text);
    }
  if (zoomable)
    {
      double zoom = is_image ? assay_image_view_get_zoom (self->image_view)
                             : assay_pdf_view_get_zoom (self->pdf_view);
      g_autofree char *text = NULL;

      /* A fitted image's scale follows the window's size: say what it does instead. */
      if (is_image && assay_image_view_get_fit (self->image_view))
        /* Translators: the zoom button of an image fitted to the window, instead of a percentage. */
        text = g_strdup (_("Fit"));
      else
        text = g_strdup_printf ("%.0f%%", zoom * 100);

      gtk_button_set_label (self->zoom_label, text);
    }

  if (self->item == NULL)
    gtk_stack_set_visible_child_name (self->stack, "empty");
  else if (error != NULL)
    {
      adw_status_page_set_description (self->error_page, error);
      gtk_stack_set_visible_child_name (self->stack, "error");
    }
  else
    gtk_stack_set_visible_child_name (self->stack, self->view);
}

static void
assay_artifact_viewer_view_notify_cb (GObject             *view,
                                      GParamSpec          *pspec,
                                      AssayArtifactViewer *self)
{
  assay_artifact_viewer_update_actions (self);
}

static void
assay_artifact_viewer_watch_view (AssayArtifactViewer *self,
                                  gpointer             view,
                                  const char * const  *names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *signal = g_strconcat ("notify::", names[i], NULL);

      g_signal_connect (view, signal, G_CALLBACK (assay_artifact_viewer_view_notify_cb), self);
    }
}

static void
assay_artifact_viewer_toast (AssayArtifactViewer *self,
                             const char          *text)
{
  assay_toast_queue_add (self->toast_queue, adw_toast_new (text));
}

/* ---- Save As ----------------------------------------------------------------------------- */

/* SELF is not referenced: dispose cancels the save, and a cancelled save reports it. */
static void
assay_artifact_viewer_saved_cb (GObject      *source,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  AssayArtifactViewer *self = user_data;
  AssayArtifactItem *item = ASSAY_ARTIFACT_ITEM (source);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!assay_artifact_item_save_finish (item, result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      text = g_strdup_printf (_("Could not save “%s”: %s"), assay_artifact_item_get_name (item),
                              error->message);
    }
  else
    text = g_strdup_printf (_("Saved “%s”"), assay_artifact_item_get_name (item));
  assay_artifact_viewer_toast (self, text);
}

static void
assay_artifact_viewer_chooser_response_cb (GtkNativeDialog     *chooser,
                                           int                  response,
                                           AssayArtifactViewer *self)
{
  g_autoptr(GFile) destination = NULL;

  if (response == GTK_RESPONSE_ACCEPT && self->item != NULL)
    destination = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  if (destination != NULL)
    assay_artifact_item_save_async (self->item,
                                    destination,
                                    self->cancellable,
                                    assay_artifact_viewer_saved_cb,
                                    self);
  gtk_native_dialog_destroy (chooser);
  g_clear_object (&self->chooser);
}

static void
assay_artifact_viewer_save_as_action (GtkWidget  *widget,
                                      const char *action_name,
                                      GVariant   *parameter)
{
  AssayArtifactViewer *self = ASSAY_ARTIFACT_VIEWER (widget);
  GtkRoot *root = gtk_widget_get_root (widget);

  if (self->item == NULL || self->chooser != NULL)
    return;
  self->chooser = gtk_file_chooser_native_new (_("Save Artifact"),
                                               GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                               GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser),
                                     assay_artifact_item_get_name (self->item));
  g_signal_connect (self->chooser, "response", G_CALLBACK (assay_artifact_viewer_chooser_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
assay_artifact_viewer_save_done (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (assay_artifact_item_save_finish (ASSAY_ARTIFACT_ITEM (source), result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
assay_artifact_viewer_save_async (AssayArtifactViewer *self,
                                  GFile               *destination,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self));
  g_return_if_fail (G_IS_FILE (destination));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, assay_artifact_viewer_save_async);
  if (self->item == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("No artifact is shown"));
      g_object_unref (task);
      return;
    }
  assay_artifact_item_save_async (self->item,
                                  destination,
                                  cancellable,
                                  assay_artifact_viewer_save_done,
                                  task);
}

gboolean
assay_artifact_viewer_save_finish (AssayArtifactViewer  *self,
                                   GAsyncResult         *result,
                                   GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- Open With…, Copy -------------------------------------------------------------------- */

static void
assay_artifact_viewer_app_chosen_cb (GtkDialog           *dialog,
                                     int                  response,
                                     AssayArtifactViewer *self)
{
  g_autoptr(GAppInfo) app = NULL;
  g_autoptr(GError) error = NULL;

  if (response == GTK_RESPONSE_OK && self->item != NULL)
    app = gtk_app_chooser_get_app_info (GTK_APP_CHOOSER (dialog));
  if (app != NULL)
    {
      g_autoptr(GFile) file = assay_artifact_item_get_file (self->item);
      g_autoptr(GdkAppLaunchContext) context =
        gdk_display_get_app_launch_context (gtk_widget_get_display (GTK_WIDGET (self)));
      GList files = { file, NULL, NULL };

      if (!g_app_info_launch (app, &files, G_APP_LAUNCH_CONTEXT (context), &error))
        {
          g_autofree char *text = g_strdup_printf (_("Could not open “%s”: %s"),
                                                   assay_artifact_item_get_name (self->item),
                                                   error->message);
          assay_artifact_viewer_toast (self, text);
        }
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
assay_artifact_viewer_open_with_action (GtkWidget  *widget,
                                        const char *action_name,
                                        GVariant   *parameter)
{
  AssayArtifactViewer *self = ASSAY_ARTIFACT_VIEWER (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  g_autoptr(GFile) file = NULL;
  GtkWidget *dialog;

  if (self->item == NULL)
    return;
  file = assay_artifact_item_get_file (self->item);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  dialog = gtk_app_chooser_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                       GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, file);
  G_GNUC_END_IGNORE_DEPRECATIONS
  g_signal_connect_object (dialog, "response", G_CALLBACK (assay_artifact_viewer_app_chosen_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

GdkTexture *
assay_artifact_viewer_get_texture (AssayArtifactViewer *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self), NULL);

  if (g_strcmp0 (self->view, "image") == 0)
    return assay_image_view_get_texture (self->image_view);
  if (g_strcmp0 (self->view, "pdf") == 0)
    return assay_pdf_view_get_texture (self->pdf_view);
  return NULL;
}

gboolean
assay_artifact_viewer_copy (AssayArtifactViewer *self)
{
  GdkTexture *texture;

  g_return_val_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self), FALSE);

  texture = assay_artifact_viewer_get_texture (self);
  if (texture == NULL)
    return FALSE;
  gdk_clipboard_set_texture (gtk_widget_get_clipboard (GTK_WIDGET (self)), texture);
  return TRUE;
}

static void
assay_artifact_viewer_copy_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *parameter)
{
  AssayArtifactViewer *self = ASSAY_ARTIFACT_VIEWER (widget);

  if (assay_artifact_viewer_copy (self))
    assay_artifact_viewer_toast (self, _("Image copied"));
}

/* ---- zoom and pages ---------------------------------------------------------------------- */

static void
assay_artifact_viewer_zoom_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *parameter)
{
  AssayArtifactViewer *self = ASSAY_ARTIFACT_VIEWER (widget);

  if (g_strcmp0 (self->view, "image") == 0)
    {
      if (g_str_equal (action_name, "viewer.zoom-in"))
        assay_image_view_zoom_in (self->image_view);
      else if (g_str_equal (action_name, "viewer.zoom-out"))
        assay_image_view_zoom_out (self->image_view);
      else if (g_str_equal (action_name, "viewer.zoom-reset"))
        assay_image_view_set_zoom (self->image_view, 1.0);
      else
        assay_image_view_zoom_to_fit (self->image_view);
    }
  else if (g_strcmp0 (self->view, "pdf") == 0)
    {
      if (g_str_equal (action_name, "viewer.zoom-in"))
        assay_pdf_view_zoom_in (self->pdf_view);
      else if (g_str_equal (action_name, "viewer.zoom-out"))
        assay_pdf_view_zoom_out (self->pdf_view);
      else if (g_str_equal (action_name, "viewer.zoom-reset"))
        assay_pdf_view_set_zoom (self->pdf_view, 1.0);
      else
        assay_pdf_view_zoom_to_fit (self->pdf_view);
    }
}

static void
assay_artifact_viewer_page_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *parameter)
{
  AssayArtifactViewer *self = ASSAY_ARTIFACT_VIEWER (widget);

  if (g_str_equal (action_name, "viewer.next-page"))
    assay_pdf_view_next_page (self->pdf_view);
  else
    assay_pdf_view_previous_page (self->pdf_view);
}

/* ---- the class --------------------------------------------------------------------------- */

static GdkContentProvider *
assay_artifact_viewer_drag_prepare_cb (GtkDragSource       *source,
                                       double               x,
                                       double               y,
                                       AssayArtifactViewer *self)
{
  if (self->item == NULL)
    return NULL;
  return assay_artifact_content_provider_new (self->item);
}

static void
assay_artifact_viewer_dispose (GObject *object)
{
  AssayArtifactViewer *self = ASSAY_ARTIFACT_VIEWER (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->toast_queue);
  if (self->chooser != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->chooser, self);
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  if (self->image_view != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->image_view, self);
      g_signal_handlers_disconnect_by_data (self->pdf_view, self);
      g_signal_handlers_disconnect_by_data (self->csv_view, self);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_ARTIFACT_VIEWER);
  for (GtkWidget *child; (child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL;)
    gtk_widget_unparent (child);
  g_clear_object (&self->item);

  G_OBJECT_CLASS (assay_artifact_viewer_parent_class)->dispose (object);
}

static void
assay_artifact_viewer_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, ASSAY_ARTIFACT_VIEWER (object)->item);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_artifact_viewer_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_ITEM:
      assay_artifact_viewer_set_item (ASSAY_ARTIFACT_VIEWER (object), g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_artifact_viewer_class_init (AssayArtifactViewerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_artifact_viewer_dispose;
  object_class->get_property = assay_artifact_viewer_get_property;
  object_class->set_property = assay_artifact_viewer_set_property;

  properties[PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, ASSAY_TYPE_ARTIFACT_ITEM,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (ASSAY_TYPE_IMAGE_VIEW);
  g_type_ensure (ASSAY_TYPE_PDF_VIEW);
  g_type_ensure (ASSAY_TYPE_CSV_VIEW);
  g_type_ensure (ASSAY_TYPE_FILE_VIEW);
  g_type_ensure (ADW_TYPE_STATUS_PAGE);
  g_type_ensure (ADW_TYPE_TOAST_OVERLAY);
  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/assay/Assay/ui/assay-artifact-viewer.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, drag_icon);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, title);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, page_controls);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, page_label);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, zoom_controls);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, zoom_label);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, copy_button);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, toasts);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, stack);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, image_view);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, pdf_view);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, csv_view);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, file_view);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactViewer, error_page);

  gtk_widget_class_install_action (widget_class,
                                   "viewer.save-as",
                                   NULL,
                                   assay_artifact_viewer_save_as_action);
  gtk_widget_class_install_action (widget_class,
                                   "viewer.open-with",
                                   NULL,
                                   assay_artifact_viewer_open_with_action);
  gtk_widget_class_install_action (widget_class, "viewer.copy", NULL, assay_artifact_viewer_copy_action);
  gtk_widget_class_install_action (widget_class, "viewer.zoom-in", NULL, assay_artifact_viewer_zoom_action);
  gtk_widget_class_install_action (widget_class, "viewer.zoom-out", NULL, assay_artifact_viewer_zoom_action);
  gtk_widget_class_install_action (widget_class,
                                   "viewer.zoom-reset",
                                   NULL,
                                   assay_artifact_viewer_zoom_action);
  gtk_widget_class_install_action (widget_class, "viewer.zoom-fit", NULL, assay_artifact_viewer_zoom_action);
  gtk_widget_class_install_action (widget_class, "viewer.next-page", NULL, assay_artifact_viewer_page_action);
  gtk_widget_class_install_action (widget_class,
                                   "viewer.previous-page",
                                   NULL,
                                   assay_artifact_viewer_page_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "viewer.save-as", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK, "viewer.copy", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "viewer.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "viewer.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class,
                                       GDK_KEY_minus,
                                       GDK_CONTROL_MASK,
                                       "viewer.zoom-out",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "viewer.zoom-reset", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, 0, "viewer.next-page", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, 0, "viewer.previous-page", NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "assay-artifact-viewer");
}

static void
assay_artifact_viewer_init (AssayArtifactViewer *self)
{
  GtkDragSource *source;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->toast_queue = assay_toast_queue_new (self->toasts);
  self->view = "empty";

  assay_artifact_viewer_watch_view (self, self->image_view,
                                    (const char * const[]) { "texture", "zoom", "fit", "error", NULL });
  assay_artifact_viewer_watch_view (self, self->pdf_view,
                                    (const char * const[]) { "texture", "zoom", "page", "n-pages", "error", NULL });
  assay_artifact_viewer_watch_view (self, self->csv_view, (const char * const[]) { "error", NULL });

  source = gtk_drag_source_new ();
  gtk_drag_source_set_actions (source, GDK_ACTION_COPY);
  g_signal_connect (source, "prepare", G_CALLBACK (assay_artifact_viewer_drag_prepare_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->drag_icon), GTK_EVENT_CONTROLLER (source));

  assay_artifact_viewer_update_actions (self);
}

GtkWidget *
assay_artifact_viewer_new (void)
{
  return g_object_new (ASSAY_TYPE_ARTIFACT_VIEWER, NULL);
}

void
assay_artifact_viewer_set_item (AssayArtifactViewer *self,
                                AssayArtifactItem   *item)
{
  g_autofree char *icon_name = NULL;

  g_return_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self));
  g_return_if_fail (item == NULL || ASSAY_IS_ARTIFACT_ITEM (item));

  if (!g_set_object (&self->item, item))
    return;

  self->view = item != NULL ? assay_artifact_viewer_view_for (item) : "empty";
  /* Only the view in use holds the item: the others drop theirs and cancel their work. */
  assay_image_view_set_item (self->image_view, g_str_equal (self->view, "image") ? item : NULL);
  assay_pdf_view_set_item (self->pdf_view, g_str_equal (self->view, "pdf") ? item : NULL);
  assay_csv_view_set_item (self->csv_view, g_str_equal (self->view, "csv") ? item : NULL);
  assay_file_view_set_item (self->file_view, g_str_equal (self->view, "file") ? item : NULL);

  if (item != NULL)
    icon_name = assay_artifact_icon_name (item);
  gtk_image_set_from_icon_name (self->drag_icon, icon_name != NULL ? icon_name : "text-x-generic");
  gtk_label_set_text (self->title, item != NULL ? assay_artifact_item_get_name (item) : "");
  assay_artifact_viewer_update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
}

AssayArtifactItem *
assay_artifact_viewer_get_item (AssayArtifactViewer *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self), NULL);
  return self->item;
}

const char *
assay_artifact_viewer_get_page (AssayArtifactViewer *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

AssayImageView *
assay_artifact_viewer_get_image_view (AssayArtifactViewer *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self), NULL);
  return self->image_view;
}

AssayPdfView *
assay_artifact_viewer_get_pdf_view (AssayArtifactViewer *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self), NULL);
  return self->pdf_view;
}

AssayCsvView *
assay_artifact_viewer_get_csv_view (AssayArtifactViewer *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self), NULL);
  return self->csv_view;
}

AssayFileView *
assay_artifact_viewer_get_file_view (AssayArtifactViewer *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_VIEWER (self), NULL);
  return self->file_view;
}
