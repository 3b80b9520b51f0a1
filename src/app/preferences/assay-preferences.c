/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Preferences"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-keyring.h"
#include "assay-preferences.h"

struct _AssayPreferences
{
  AdwPreferencesWindow  parent_instance;

  AdwComboRow          *provider_row;
  AdwEntryRow          *model_row;
  AdwEntryRow          *base_url_row;
  AdwPasswordEntryRow  *key_row;
  GtkSpinButton        *max_steps_spin;
  GtkSwitch            *auto_switch;
  GtkSwitch            *fenced_switch;
  GtkSwitch            *check_switch;
  AdwComboRow          *backend_row;
  AdwActionRow         *backend_reason_row;
  GtkSpinButton        *memory_spin;
  GtkSpinButton        *cpus_spin;
  GtkSpinButton        *timeout_spin;

  GSettings            *settings;
  GCancellable         *cancellable;
};

G_DEFINE_FINAL_TYPE (AssayPreferences, assay_preferences, ADW_TYPE_PREFERENCES_WINDOW)

static const char *providers[] = { "openai", "anthropic", NULL };
static const char *backends[] = { "auto", "docker", "bwrap", NULL };

static gboolean
assay_preferences_get_index (GValue   *value,
                             GVariant *variant,
                             gpointer  user_data)
{
  const char **names = user_data;
  const char *name = g_variant_get_string (variant, NULL);

  for (guint i = 0; names[i] != NULL; i++)
    if (g_str_equal (names[i], name))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  g_value_set_uint (value, 0);
  return TRUE;
}

static GVariant *
assay_preferences_set_index (const GValue       *value,
                             const GVariantType *expected_type,
                             gpointer            user_data)
{
  const char **names = user_data;
  guint index = g_value_get_uint (value);

  for (guint i = 0; names[i] != NULL; i++)
    if (i == index)
      return g_variant_new_string (names[i]);
  return NULL;
}

static gboolean
assay_preferences_get_auto (GValue   *value,
                            GVariant *variant,
                            gpointer  user_data)
{
  g_value_set_boolean (value, g_strcmp0 (g_variant_get_string (variant, NULL), "auto") == 0);
  return TRUE;
}

static GVariant *
assay_preferences_set_auto (const GValue       *value,
                            const GVariantType *expected_type,
                            gpointer            user_data)
{
  return g_variant_new_string (g_value_get_boolean (value) ? "auto" : "ask");
}

static void
assay_preferences_key_stored_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!assay_keyring_store_finish (result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      AssayPreferences *self = user_data;
      g_autofree char *text = g_strdup_printf (_("The key could not be stored in the keyring: %s"), error->message);

      adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), adw_toast_new (text));
    }
}

static void
assay_preferences_key_apply_cb (AssayPreferences *self)
{
  g_autofree char *provider = g_settings_get_string (self->settings, "provider");
  g_autofree char *base_url = g_settings_get_string (self->settings, "base-url");
  const char *key = gtk_editable_get_text (GTK_EDITABLE (self->key_row));

  if (*provider == '\0' || *key == '\0')
    return;
  assay_keyring_store_async (provider,
                             base_url,
                             key,
                             self->cancellable,
                             assay_preferences_key_stored_cb,
                             self);
  gtk_editable_set_text (GTK_EDITABLE (self->key_row), "");
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self),
                                    adw_toast_new (_("Key saved in the keyring")));
}

static void
assay_preferences_dispose (GObject *object)
{
  AssayPreferences *self = ASSAY_PREFERENCES (object);

  g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (assay_preferences_parent_class)->dispose (object);
}

static void
assay_preferences_finalize (GObject *object)
{
  AssayPreferences *self = ASSAY_PREFERENCES (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (assay_preferences_parent_class)->finalize (object);
}

static void
assay_preferences_class_init (AssayPreferencesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_preferences_dispose;
  object_class->finalize = assay_preferences_finalize;

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-preferences.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, provider_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, model_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, base_url_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, key_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, max_steps_spin);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, auto_switch);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, fenced_switch);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, check_switch);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, backend_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, backend_reason_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, memory_spin);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, cpus_spin);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, timeout_spin);
  gtk_widget_class_bind_template_callback (widget_class, assay_preferences_key_apply_cb);
}

static void
assay_preferences_init (AssayPreferences *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->settings = g_settings_new ("org.assay.Assay");

  g_settings_bind_with_mapping (self->settings, "provider", self->provider_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, assay_preferences_get_index, assay_preferences_set_index, providers, NULL);
  g_settings_bind (self->settings, "model", self->model_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "base-url", self->base_url_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "max-steps", self->max_steps_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (self->settings, "approval-policy", self->auto_switch, "active",
                                G_SETTINGS_BIND_DEFAULT, assay_preferences_get_auto, assay_preferences_set_auto, NULL, NULL);
  g_settings_bind (self->settings,
                   "fenced-code-fallback",
                   self->fenced_switch,
                   "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "check-numbers", self->check_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (self->settings, "sandbox-backend", self->backend_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, assay_preferences_get_index, assay_preferences_set_index, backends, NULL);
  g_settings_bind (self->settings, "memory-mb", self->memory_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "cpus", self->cpus_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "cell-timeout", self->timeout_spin, "value", G_SETTINGS_BIND_DEFAULT);
}

GtkWidget *
assay_preferences_new (GtkWindow  *parent,
                       const char *backend_reason)
{
  AssayPreferences *self = g_object_new (ASSAY_TYPE_PREFERENCES,
                                         "transient-for", parent,
                                         "modal", TRUE,
                                         NULL);

  if (backend_reason != NULL)
    adw_action_row_set_subtitle (self->backend_reason_row, backend_reason);
  return GTK_WIDGET (self);
}
