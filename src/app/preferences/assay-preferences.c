/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Preferences"

#include "config.h"

#include <string.h>

#include <errno.h>
#include <stdio.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>

#include "assay-app-settings.h"
#include "assay-keyring.h"
#include "assay-llm-provider.h"
#include "assay-model-choice.h"
#include "assay-preferences.h"
#include "assay-prices.h"
#include "assay-sandbox-survey.h"

struct _AssayPreferences
{
  AdwPreferencesWindow  parent_instance;

  AdwComboRow          *provider_row;
  AdwComboRow          *model_choice_row;  /* the server's models, once it listed them */
  AdwEntryRow          *model_row;         /* the model typed, while it did not */
  GtkSpinner           *model_spinner;
  GtkLabel             *model_status;
  AdwEntryRow          *base_url_row;
  AdwComboRow          *api_row;
  AdwPasswordEntryRow  *key_row;
  GtkSpinButton        *max_steps_spin;
  gboolean              openai_key;        /* for OpenAI's hosted interpreter: a key to make it with */
  GtkSwitch            *auto_switch;
  GtkSwitch            *fenced_switch;
  GtkSwitch            *check_switch;
  AdwComboRow          *backend_row;
  AdwPasswordEntryRow  *e2b_key_row;
  AdwEntryRow          *e2b_domain_row;
  AdwEntryRow          *e2b_template_row;
  AdwActionRow         *backend_reason_row;
  AdwPreferencesGroup  *engines_group;
  AdwActionRow         *engines_searching_row;
  GtkSpinner           *engines_spinner;
  GtkWidget            *engines_refresh_button;
  GPtrArray            *engine_rows;   /* the rows engines_group shows, one per place */
  GtkSpinButton        *memory_spin;
  GtkSpinButton        *cpus_spin;
  GtkSpinButton        *timeout_spin;
  GtkSpinButton        *budget_spin;
  AdwPreferencesGroup  *prices_group;
  AdwActionRow         *user_prices_row;
  GtkWidget            *reset_prices_button;

  GSettings            *settings;
  GCancellable         *cancellable;
  GCancellable         *models_cancellable;  /* the listing of the server's models */
  gboolean              showing_models;      /* the choice row is being filled */
  AssayPriceTable      *prices;       /* the shipped table with the analyst's on top */
  GPtrArray            *price_rows;   /* the rows prices_group shows, one per entry */
  GHashTable           *own_prices;   /* "model\x1fsince" of the analyst's entries */
};

G_DEFINE_FINAL_TYPE (AssayPreferences, assay_preferences, ADW_TYPE_PREFERENCES_WINDOW)

static const char *providers[] = { "openai", "anthropic", NULL };
static const char *backends[] = { "auto", "docker", "bwrap", "e2b", NULL };
static const char *openai_apis[] = { "auto", "responses", "chat", NULL };

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

/* Which of OpenAI's APIs is only a question for the OpenAI provider. */
static gboolean
assay_preferences_get_is_openai (GValue   *value,
                                 GVariant *variant,
                                 gpointer  user_data)
{
  g_value_set_boolean (value, g_strcmp0 (g_variant_get_string (variant, NULL), "anthropic") != 0);
  return TRUE;
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

static void assay_preferences_list_models (AssayPreferences *self);

static void
assay_preferences_key_stored_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (assay_keyring_store_finish (result, &error))
    /* With the new key the server may list its models now. */
    assay_preferences_list_models (user_data);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
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

/* ---- the server's models ------------------------------------------------------------------ */

/* The model setting selected in the choice row (the row's list holds it). */
static void
assay_preferences_select_model (AssayPreferences *self)
{
  GListModel *list = adw_combo_row_get_model (self->model_choice_row);
  g_autofree char *model = g_settings_get_string (self->settings, "model");

  if (list == NULL)
    return;
  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(GtkStringObject) item = g_list_model_get_item (list, i);

      if (g_str_equal (gtk_string_object_get_string (item), model))
        {
          self->showing_models = TRUE;
          adw_combo_row_set_selected (self->model_choice_row, i);
          self->showing_models = FALSE;
          return;
        }
    }
}

static void
assay_preferences_model_chosen_cb (AssayPreferences *self)
{
  GtkStringObject *item = adw_combo_row_get_selected_item (self->model_choice_row);

  if (self->showing_models || item == NULL)
    return;
  g_settings_set_string (self->settings, "model", gtk_string_object_get_string (item));
}

typedef struct
{
  AssayPreferences *self;         /* a weak pointer */
  GCancellable     *cancellable;  /* which listing this is */
  char             *provider;
  char             *base_url;
} ModelsListing;

static void
assay_preferences_models_listing_free (ModelsListing *listing)
{
  g_clear_weak_pointer (&listing->self);
  g_clear_object (&listing->cancellable);
  g_free (listing->provider);
  g_free (listing->base_url);
  g_free (listing);
}

static void
assay_preferences_show_model_status (AssayPreferences *self,
                                     const char       *text)
{
  gtk_label_set_text (self->model_status, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->model_status), text != NULL);
}

static void
assay_preferences_models_listed_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  ModelsListing *listing = user_data;
  AssayPreferences *self = listing->self;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = assay_llm_provider_list_models_finish (ASSAY_LLM_PROVIDER (source), result, &error);

  if (self == NULL || self->models_cancellable != listing->cancellable)
    {
      assay_preferences_models_listing_free (listing);
      return;
    }
  g_clear_object (&self->models_cancellable);
  gtk_spinner_set_spinning (self->model_spinner, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->model_spinner), FALSE);
  if (models != NULL && models[0] != NULL)
    {
      /* A vendor's own server lists embedding and speech models too; another server's list
       * is what it serves. */
      g_auto(GStrv) chat = *listing->base_url == '\0'
                           ? assay_model_choice_filter_chat (listing->provider, (const char * const *) models)
                           : g_strdupv (models);
      g_autoptr(GtkStringList) list = gtk_string_list_new ((const char * const *) chat);
      g_autofree char *model = g_settings_get_string (self->settings, "model");

      /* The model chosen stays a choice even when the server does not list it. */
      if (*model != '\0' && !g_strv_contains ((const char * const *) chat, model))
        gtk_string_list_append (list, model);
      self->showing_models = TRUE;
      adw_combo_row_set_model (self->model_choice_row, G_LIST_MODEL (list));
      self->showing_models = FALSE;
      assay_preferences_select_model (self);
      if (*model == '\0')
        assay_preferences_model_chosen_cb (self);
      gtk_widget_set_visible (GTK_WIDGET (self->model_choice_row), TRUE);
      gtk_widget_set_visible (GTK_WIDGET (self->model_row), FALSE);
      assay_preferences_show_model_status (self, NULL);
    }
  else
    {
      /* The model is typed, and the analyst told why there is no list. */
      g_autofree char *text = error != NULL
                              ? g_strdup_printf (_("The server's models cannot be listed: %s"), error->message)
                              : g_strdup (_("The server lists no model: type the model's name."));

      gtk_widget_set_visible (GTK_WIDGET (self->model_choice_row), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->model_row), TRUE);
      assay_preferences_show_model_status (self, text);
    }
  assay_preferences_models_listing_free (listing);
}

static void
assay_preferences_key_found_cb (GObject      *source,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  ModelsListing *listing = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(AssayLlmProvider) provider = NULL;
  char *key = assay_keyring_lookup_finish (result, &error);
  const char *server;

  if (listing->self == NULL || g_cancellable_is_cancelled (listing->cancellable))
    {
      secret_password_free (key);
      assay_preferences_models_listing_free (listing);
      return;
    }
  server = *listing->base_url != '\0' ? listing->base_url : assay_model_choice_get_cloud_base_url (listing->provider);
  provider = assay_llm_provider_new_for_name (g_str_equal (listing->provider, "anthropic") ? "anthropic" : "openai",
                                              server, key, NULL);
  secret_password_free (key);
  assay_llm_provider_list_models_async (provider, listing->cancellable, assay_preferences_models_listed_cb, listing);
}

/* Asks the server the settings name (with the key the keyring holds for it) for its models;
 * again whenever the provider or the address changes. */
static void
assay_preferences_list_models (AssayPreferences *self)
{
  ModelsListing *listing;

  g_cancellable_cancel (self->models_cancellable);
  g_clear_object (&self->models_cancellable);
  listing = g_new0 (ModelsListing, 1);
  listing->provider = g_settings_get_string (self->settings, "provider");
  listing->base_url = g_settings_get_string (self->settings, "base-url");
  if (*listing->provider == '\0')
    {
      assay_preferences_models_listing_free (listing);
      return;
    }
  self->models_cancellable = g_cancellable_new ();
  g_set_weak_pointer (&listing->self, self);
  listing->cancellable = g_object_ref (self->models_cancellable);
  gtk_widget_set_visible (GTK_WIDGET (self->model_spinner), TRUE);
  gtk_spinner_set_spinning (self->model_spinner, TRUE);
  assay_keyring_lookup_async (listing->provider, listing->base_url, listing->cancellable,
                              assay_preferences_key_found_cb, listing);
}

static void assay_preferences_engines_refresh_cb (AssayPreferences *self);

/* No provider chosen yet (a first run that went to the demo), but the row shows one: a model
 * or a server set here is for the provider shown, which is then chosen too. */
static void
assay_preferences_commit_provider (AssayPreferences *self,
                                   const char       *key)
{
  g_autofree char *provider = g_settings_get_string (self->settings, "provider");
  g_autofree char *value = NULL;
  guint selected;

  if (*provider != '\0' || (!g_str_equal (key, "model") && !g_str_equal (key, "base-url")))
    return;
  value = g_settings_get_string (self->settings, key);
  selected = adw_combo_row_get_selected (self->provider_row);
  if (*g_strstrip (value) != '\0' && selected < G_N_ELEMENTS (providers) - 1)
    g_settings_set_string (self->settings, "provider", providers[selected]);
}

static void
assay_preferences_settings_changed_cb (AssayPreferences *self,
                                       const char       *key)
{
  assay_preferences_commit_provider (self, key);
  if (g_str_equal (key, "provider") || g_str_equal (key, "base-url"))
    assay_preferences_list_models (self);
  else if ((g_str_equal (key, "sandbox-backend") || g_str_equal (key, "e2b-domain") ||
            g_str_equal (key, "e2b-template")) && gtk_widget_get_sensitive (self->engines_refresh_button))
    assay_preferences_engines_refresh_cb (self);
  else if (g_str_equal (key, "model"))
    assay_preferences_select_model (self);
}

/* ---- model prices ------------------------------------------------------------------------ */

static char *
assay_preferences_price_key (const AssayPrice *price)
{
  return g_strconcat (price->model, "\x1f", price->since != NULL ? price->since : "", NULL);
}

static void
assay_preferences_toast (AssayPreferences *self,
                         const char       *text)
{
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), adw_toast_new (text));
}

/* The analyst's own entries alone (the user's file; none when there is no file). */
static AssayPriceTable *
assay_preferences_load_own_prices (GError **error)
{
  g_autoptr(AssayPriceTable) own = assay_price_table_new ();
  g_autofree char *path = assay_price_table_get_user_path ();

  if (g_file_test (path, G_FILE_TEST_EXISTS) && !assay_price_table_load_file (own, path, error))
    return NULL;
  return g_steal_pointer (&own);
}

/* "30 November 2025" for "2025-11-30". */
static char *
assay_preferences_format_date (const char *date)
{
  int year, month, day;
  g_autoptr(GDateTime) time = NULL;

  if (date == NULL || sscanf (date, "%4d-%2d-%2d", &year, &month, &day) != 3 ||
      (time = g_date_time_new_utc (year, month, day, 0, 0, 0)) == NULL)
    return g_strdup (date);
  return g_date_time_format (time, "%-d %B %Y");
}

static char *
assay_preferences_format_dollars (double usd)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  /* Two decimals at least, as the vendors write them; more when the price has them. */
  g_ascii_formatd (text, sizeof text, fabs (usd * 100 - round (usd * 100)) < 1e-6 ? "%.2f" : "%.3f", usd);
  return g_strconcat ("$", text, NULL);
}

static char *
assay_preferences_describe_price (const AssayPrice *price,
                                  gboolean          own)
{
  g_autofree char *input = assay_preferences_format_dollars (price->input);
  g_autofree char *cached = assay_preferences_format_dollars (price->cached_input >= 0 ? price->cached_input : price->input);
  g_autofree char *output = assay_preferences_format_dollars (price->output);
  g_autofree char *text = g_strdup_printf (_("Input %s · cached input %s · output %s"), input, cached, output);

  if (price->cache_write >= 0)
    {
      g_autofree char *write = assay_preferences_format_dollars (price->cache_write);
      g_autofree char *longer = g_strdup_printf (_("%s · cache writes %s"), text, write);

      g_free (text);
      text = g_steal_pointer (&longer);
    }
  if (own)
    return g_strdup_printf (_("Your price: %s"), text);
  return g_steal_pointer (&text);
}

static void assay_preferences_edit_price (AssayPreferences *self,
                                          const AssayPrice *price);

static void
assay_preferences_edit_clicked_cb (GtkButton        *button,
                                   AssayPreferences *self)
{
  assay_preferences_edit_price (self, g_object_get_data (G_OBJECT (button), "price"));
}

/* The table again (the shipped one, the analyst's on top) and its rows. */
static void
assay_preferences_reload_prices (AssayPreferences *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) own_error = NULL;
  g_autoptr(AssayPriceTable) own = NULL;
  g_autoptr(GPtrArray) prices = NULL;
  g_autofree char *path = assay_price_table_get_user_path ();
  g_autofree char *path_display = g_filename_display_name (path);
  g_autofree char *date = NULL;
  g_autofree char *description = NULL;
  gboolean has_own = g_file_test (path, G_FILE_TEST_EXISTS);

  for (guint i = 0; i < self->price_rows->len; i++)
    adw_preferences_group_remove (self->prices_group, g_ptr_array_index (self->price_rows, i));
  g_ptr_array_set_size (self->price_rows, 0);
  g_hash_table_remove_all (self->own_prices);
  g_clear_pointer (&self->prices, assay_price_table_unref);

  self->prices = assay_price_table_new_default (&error);
  if (self->prices == NULL)
    self->prices = assay_price_table_new_shipped (NULL);
  if (self->prices == NULL)
    self->prices = assay_price_table_new ();
  own = assay_preferences_load_own_prices (&own_error);
  if (own != NULL)
    {
      g_autoptr(GPtrArray) entries = assay_price_table_get_prices (own);

      for (guint i = 0; i < entries->len; i++)
        g_hash_table_add (self->own_prices, assay_preferences_price_key (g_ptr_array_index (entries, i)));
    }

  date = assay_preferences_format_date (assay_price_table_get_updated (self->prices));
  description = date != NULL ? g_strdup_printf (_("List prices of %s, in US dollars per million tokens"), date)
                             : g_strdup (_("In US dollars per million tokens"));
  adw_preferences_group_set_description (self->prices_group, description);

  prices = assay_price_table_get_prices (self->prices);
  for (guint i = 0; i < prices->len; i++)
    {
      AssayPrice *price = g_ptr_array_index (prices, i);
      g_autofree char *key = assay_preferences_price_key (price);
      g_autofree char *subtitle = assay_preferences_describe_price (price, g_hash_table_contains (self->own_prices, key));
      g_autofree char *title = price->since != NULL ? g_strdup_printf (_("%s from %s"), price->model, price->since)
                                                    : g_strdup (price->model);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *button = gtk_button_new_with_mnemonic (_("_Edit…"));
      g_autofree char *button_label = g_strdup_printf (_("Edit the price of %s"), title);

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (button, "flat");
      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, button_label, -1);
      g_object_set_data_full (G_OBJECT (button), "price", assay_price_copy (price), (GDestroyNotify) assay_price_free);
      g_signal_connect (button, "clicked", G_CALLBACK (assay_preferences_edit_clicked_cb), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), button);
      adw_preferences_group_add (self->prices_group, row);
      g_ptr_array_add (self->price_rows, row);
    }

  if (error != NULL || own_error != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Cannot be read, so the shipped prices are used: %s"),
                                               (error != NULL ? error : own_error)->message);

      adw_action_row_set_subtitle (self->user_prices_row, text);
    }
  else if (has_own)
    {
      g_autofree char *text = g_strdup_printf (_("Kept in %s, on top of the shipped prices"), path_display);

      adw_action_row_set_subtitle (self->user_prices_row, text);
    }
  else
    adw_action_row_set_subtitle (self->user_prices_row, _("None: the shipped prices are used"));
  gtk_widget_set_sensitive (self->reset_prices_button, has_own);
}

/* Writes PRICE among the analyst's entries (in place of one for the same model and date). */
static gboolean
assay_preferences_save_own_price (const AssayPrice  *price,
                                  GError           **error)
{
  g_autoptr(AssayPriceTable) own = assay_preferences_load_own_prices (error);
  g_autoptr(AssayPriceTable) table = assay_price_table_new ();
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *key = assay_preferences_price_key (price);
  g_autofree char *json = NULL;
  g_autofree char *tidy = NULL;
  gboolean replaced = FALSE;

  if (own == NULL)
    return FALSE;
  entries = assay_price_table_get_prices (own);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "models");
  json_builder_begin_array (builder);
  for (guint i = 0; i <= entries->len; i++)
    {
      const AssayPrice *entry;
      g_autofree char *entry_key = NULL;

      if (i < entries->len)
        {
          entry = g_ptr_array_index (entries, i);
          entry_key = assay_preferences_price_key (entry);
          if (g_str_equal (entry_key, key))
            {
              entry = price;
              replaced = TRUE;
            }
        }
      else if (!replaced)
        entry = price;
      else
        break;
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "model");
      json_builder_add_string_value (builder, entry->model);
      if (entry->since != NULL)
        {
          json_builder_set_member_name (builder, "since");
          json_builder_add_string_value (builder, entry->since);
        }
      json_builder_set_member_name (builder, "input");
      json_builder_add_double_value (builder, entry->input);
      if (entry->cached_input >= 0)
        {
          json_builder_set_member_name (builder, "cached_input");
          json_builder_add_double_value (builder, entry->cached_input);
        }
      if (entry->cache_write >= 0)
        {
          json_builder_set_member_name (builder, "cache_write");
          json_builder_add_double_value (builder, entry->cache_write);
        }
      json_builder_set_member_name (builder, "output");
      json_builder_add_double_value (builder, entry->output);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json = json_generator_to_data (generator, NULL);
  /* Checked, and written one entry a line with the figures as typed. */
  if (!assay_price_table_load_data (table, json, -1, error))
    return FALSE;
  tidy = assay_price_table_to_json (table);
  return assay_price_table_save_user (tidy, error);
}

typedef struct
{
  AssayPreferences *self;
  AssayPrice       *price;    /* the entry edited; NULL: a model added */
  GtkEditable      *model;
  GtkSpinButton    *input;
  GtkSpinButton    *cached;
  GtkSpinButton    *output;
} PriceDialog;

static void
assay_preferences_price_dialog_free (PriceDialog *dialog)
{
  g_clear_pointer (&dialog->price, assay_price_free);
  g_free (dialog);
}

static void
assay_preferences_price_dialog_closure_free (gpointer  data,
                                             GClosure *closure)
{
  assay_preferences_price_dialog_free (data);
}

static void
assay_preferences_price_dialog_response_cb (AdwMessageDialog *message,
                                            const char       *response,
                                            PriceDialog      *dialog)
{
  AssayPreferences *self = dialog->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *model = NULL;
  AssayPrice price = { 0 };

  if (!g_str_equal (response, "save"))
    return;
  model = g_strstrip (g_strdup (dialog->price != NULL ? dialog->price->model
                                                      : gtk_editable_get_text (dialog->model)));
  price.model = model;
  price.since = dialog->price != NULL ? dialog->price->since : NULL;
  price.input = gtk_spin_button_get_value (dialog->input);
  price.cached_input = gtk_spin_button_get_value (dialog->cached);
  price.cache_write = dialog->price != NULL ? dialog->price->cache_write : -1;
  price.output = gtk_spin_button_get_value (dialog->output);
  if (!assay_preferences_save_own_price (&price, &error))
    {
      g_autofree char *text = g_strdup_printf (_("The price could not be saved: %s"), error->message);

      assay_preferences_toast (self, text);
      return;
    }
  assay_preferences_reload_prices (self);
  {
    g_autofree char *text = g_strdup_printf (_("Price of %s saved"), model);

    assay_preferences_toast (self, text);
  }
}

static GtkSpinButton *
assay_preferences_price_spin (GtkGrid    *grid,
                              int         row,
                              const char *label,
                              const char *name,
                              double      value)
{
  GtkWidget *title = gtk_label_new_with_mnemonic (label);
  GtkWidget *spin = gtk_spin_button_new_with_range (0, ASSAY_PRICE_MAX - 0.001, 0.01);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), 3);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_widget_set_hexpand (spin, TRUE);
  gtk_widget_set_name (spin, name);
  gtk_label_set_mnemonic_widget (GTK_LABEL (title), spin);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_grid_attach (grid, title, 0, row, 1, 1);
  gtk_grid_attach (grid, spin, 1, row, 1, 1);
  return GTK_SPIN_BUTTON (spin);
}

static void
assay_preferences_price_model_changed_cb (GtkEditable      *model,
                                          AdwMessageDialog *message)
{
  g_autofree char *name = g_strstrip (g_strdup (gtk_editable_get_text (model)));

  adw_message_dialog_set_response_enabled (message, "save",
                                           *name != '\0' && g_utf8_strlen (name, -1) <= ASSAY_PRICE_MODEL_MAX);
}

/* PRICE's figures in a dialog (NULL: a model to add); "Save" writes them among the analyst's
 * own prices. */
static void
assay_preferences_edit_price (AssayPreferences *self,
                              const AssayPrice *price)
{
  PriceDialog *dialog = g_new0 (PriceDialog, 1);
  GtkWidget *message;
  GtkWidget *grid = gtk_grid_new ();
  g_autofree char *heading = NULL;
  int row = 0;

  dialog->self = self;
  dialog->price = price != NULL ? assay_price_copy (price) : NULL;
  if (price != NULL)
    heading = price->since != NULL ? g_strdup_printf (_("Price of %s from %s"), price->model, price->since)
                                   : g_strdup_printf (_("Price of %s"), price->model);
  else
    heading = g_strdup (_("Add a Model"));
  message = adw_message_dialog_new (GTK_WINDOW (self), heading, _("US dollars per million tokens"));
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  if (price == NULL)
    {
      GtkWidget *title = gtk_label_new_with_mnemonic (_("_Model"));
      GtkWidget *entry = gtk_entry_new ();

      gtk_widget_set_name (entry, "model");
      gtk_entry_set_max_length (GTK_ENTRY (entry), ASSAY_PRICE_MODEL_MAX);
      gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
      gtk_label_set_mnemonic_widget (GTK_LABEL (title), entry);
      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_grid_attach (GTK_GRID (grid), title, 0, row, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), entry, 1, row++, 1, 1);
      dialog->model = GTK_EDITABLE (entry);
    }
  dialog->input = assay_preferences_price_spin (GTK_GRID (grid), row++, _("_Input"), "input",
                                                price != NULL ? price->input : 0);
  dialog->cached = assay_preferences_price_spin (GTK_GRID (grid), row++, _("_Cached input"), "cached-input",
                                                 price == NULL ? 0 : price->cached_input >= 0 ? price->cached_input : price->input);
  dialog->output = assay_preferences_price_spin (GTK_GRID (grid), row++, _("_Output"), "output",
                                                 price != NULL ? price->output : 0);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (message), grid);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (message),
                                    "cancel", _("_Cancel"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (message), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (message), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (message), "cancel");
  if (dialog->model != NULL)
    {
      g_signal_connect (dialog->model, "changed", G_CALLBACK (assay_preferences_price_model_changed_cb), message);
      assay_preferences_price_model_changed_cb (dialog->model, ADW_MESSAGE_DIALOG (message));
    }
  g_signal_connect_data (message, "response", G_CALLBACK (assay_preferences_price_dialog_response_cb), dialog,
                         assay_preferences_price_dialog_closure_free, 0);
  gtk_window_present (GTK_WINDOW (message));
}

static void
assay_preferences_add_price_cb (AssayPreferences *self)
{
  assay_preferences_edit_price (self, NULL);
}

static void
assay_preferences_reset_prices_cb (AssayPreferences *self)
{
  g_autofree char *path = assay_price_table_get_user_path ();

  if (g_unlink (path) != 0 && errno != ENOENT)
    {
      int saved_errno = errno;
      g_autofree char *display = g_filename_display_name (path);
      g_autofree char *text = g_strdup_printf (_("%s could not be removed: %s"), display, g_strerror (saved_errno));

      assay_preferences_toast (self, text);
      return;
    }
  assay_preferences_reload_prices (self);
  assay_preferences_toast (self, _("The shipped prices are used again"));
}

static void
assay_preferences_dispose (GObject *object)
{
  AssayPreferences *self = ASSAY_PREFERENCES (object);

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->models_cancellable);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  G_OBJECT_CLASS (assay_preferences_parent_class)->dispose (object);
}

static void
assay_preferences_finalize (GObject *object)
{
  AssayPreferences *self = ASSAY_PREFERENCES (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->models_cancellable);
  g_clear_pointer (&self->prices, assay_price_table_unref);
  g_clear_pointer (&self->price_rows, g_ptr_array_unref);
  g_clear_pointer (&self->engine_rows, g_ptr_array_unref);
  g_clear_pointer (&self->own_prices, g_hash_table_unref);
  G_OBJECT_CLASS (assay_preferences_parent_class)->finalize (object);
}

/* ---- the engines found ------------------------------------------------------------------- */

static void
assay_preferences_clear_engine_rows (AssayPreferences *self)
{
  for (guint i = 0; i < self->engine_rows->len; i++)
    adw_preferences_group_remove (self->engines_group, g_ptr_array_index (self->engine_rows, i));
  g_ptr_array_set_size (self->engine_rows, 0);
}

static GtkWidget *
assay_preferences_engine_row (const AssaySandboxPlace *place)
{
  GtkWidget *row = adw_action_row_new ();
  g_autofree char *subtitle = g_strdup_printf ("%s\n%s", place->where, place->detail ? place->detail : "");
  GtkWidget *status;

  /* What an engine says of itself is not markup. */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), place->title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 6);
  gtk_widget_set_name (row, place->kind);

  if (place->chosen)
    status = gtk_label_new (_("In Use"));
  else if (place->usable && place->ready)
    status = gtk_label_new (_("Ready"));
  else if (place->usable)
    status = gtk_label_new (_("Not Prepared"));
  else
    status = gtk_label_new (_("Not Usable"));
  gtk_widget_set_valign (status, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (status, place->chosen ? "accent" : place->usable && place->ready ? "success"
                                                                 : place->usable ? "warning" : "dim-label");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), status);
  return row;
}

/* The survey and the keyring's lookup before it hold the window weakly: closed, it goes at
 * once, and their answers find nobody. */
static GWeakRef *
assay_preferences_weak_new (AssayPreferences *self)
{
  GWeakRef *weak = g_new0 (GWeakRef, 1);

  g_weak_ref_init (weak, self);
  return weak;
}

static AssayPreferences *
assay_preferences_weak_steal (GWeakRef *weak)
{
  AssayPreferences *self = g_weak_ref_get (weak);

  g_weak_ref_clear (weak);
  g_free (weak);
  return self;
}

static void
assay_preferences_engines_found_cb (GObject      *source,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  g_autoptr(AssayPreferences) self = assay_preferences_weak_steal (user_data);
  g_autoptr(GPtrArray) places = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;

  places = assay_sandbox_survey_finish (result, &reason, &error);
  if (self == NULL || g_cancellable_is_cancelled (self->cancellable))
    return;
  /* E2B chosen in the settings: new sessions run there, or fail saying why; never here. */
  if (places != NULL)
    {
      g_autofree char *backend = g_settings_get_string (self->settings, "sandbox-backend");

      for (guint i = 0; g_str_equal (backend, "e2b") && i < places->len; i++)
        {
          AssaySandboxPlace *place = g_ptr_array_index (places, i);

          place->chosen = g_str_equal (place->kind, "e2b") && place->usable;
          if (!g_str_equal (place->kind, "e2b"))
            continue;
          g_free (reason);
          reason = place->usable ? g_strdup (_("E2B, as chosen: the cells and the datasets go to E2B."))
                                 : g_strdup_printf (_("E2B is chosen but cannot be used (%s): questions fail "
                                                      "until it can, nothing runs on this machine instead."),
                                                    place->detail);
        }
    }
  /* OpenAI's hosted interpreter needs the Responses API and a key, which only the settings
   * and the keyring know. */
  for (guint i = 0; places != NULL && i < places->len; i++)
    {
      AssaySandboxPlace *place = g_ptr_array_index (places, i);

      if (!g_str_equal (place->kind, "openai"))
        continue;
      g_free (place->detail);
      if (!assay_app_settings_speak_responses (self->settings))
        {
          place->usable = place->ready = FALSE;
          place->detail = g_strdup (_("Needs OpenAI's Responses API: choose OpenAI as the model provider, with the "
                                      "Responses API (or “Automatic” on OpenAI's own server)"));
        }
      else if (!self->openai_key)
        {
          place->usable = TRUE;
          place->ready = FALSE;
          place->detail = g_strdup (_("No OpenAI API key: store one under Model, or set OPENAI_API_KEY"));
        }
      else
        place->detail = g_strdup (_("Hosted: the datasets and the code go to OpenAI and run there without approval; "
                                    "only for a session that chooses it (Run the Code on OpenAI in the window's "
                                    "destination popover)"));
    }
  gtk_spinner_stop (self->engines_spinner);
  gtk_widget_set_visible (GTK_WIDGET (self->engines_searching_row), FALSE);
  gtk_widget_set_sensitive (self->engines_refresh_button, TRUE);
  assay_preferences_clear_engine_rows (self);
  if (places == NULL)
    return;
  for (guint i = 0; i < places->len; i++)
    {
      GtkWidget *row = assay_preferences_engine_row (g_ptr_array_index (places, i));

      adw_preferences_group_add (self->engines_group, row);
      g_ptr_array_add (self->engine_rows, row);
    }
  if (reason != NULL)
    {
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("New Sessions"));
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), reason);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 6);
      gtk_widget_set_name (row, "choice");
      adw_preferences_group_add (self->engines_group, row);
      g_ptr_array_add (self->engine_rows, row);
    }
}

/* E2B is surveyed with the key the keyring holds for it (and the domain and template set). */
static void
assay_preferences_e2b_found_cb (GObject      *source,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  g_autoptr(AssayPreferences) self = assay_preferences_weak_steal (user_data);
  g_autoptr(AssayE2bSettings) e2b = NULL;
  g_autoptr(GError) error = NULL;

  e2b = assay_app_e2b_settings_lookup_finish (result, &error);
  if (self == NULL || g_cancellable_is_cancelled (self->cancellable))
    return;
  if (e2b == NULL)
    g_debug ("E2B's key could not be read from the keyring: %s", error->message);
  assay_sandbox_survey_full_async (e2b, self->cancellable, assay_preferences_engines_found_cb,
                                   assay_preferences_weak_new (self));
}

/* Whether OpenAI's hosted interpreter would have a key: the keyring's for the server the
 * settings name, or the environment's. Then E2B's. */
static void
assay_preferences_openai_key_found_cb (GObject      *source,
                                       GAsyncResult *result,
                                       gpointer      user_data)
{
  g_autoptr(AssayPreferences) self = assay_preferences_weak_steal (user_data);
  g_autoptr(GError) error = NULL;
  char *key = assay_keyring_lookup_finish (result, &error);

  if (self == NULL || g_cancellable_is_cancelled (self->cancellable))
    {
      secret_password_free (key);
      return;
    }
  self->openai_key = (key != NULL && *key != '\0') ||
                     (g_getenv ("OPENAI_API_KEY") != NULL && *g_getenv ("OPENAI_API_KEY") != '\0') ||
                     (g_getenv ("ASSAY_API_KEY") != NULL && *g_getenv ("ASSAY_API_KEY") != '\0');
  secret_password_free (key);
  assay_app_e2b_settings_lookup_async (self->settings, self->cancellable, assay_preferences_e2b_found_cb,
                                       assay_preferences_weak_new (self));
}

static void
assay_preferences_engines_refresh_cb (AssayPreferences *self)
{
  gtk_widget_set_sensitive (self->engines_refresh_button, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->engines_searching_row), TRUE);
  gtk_spinner_start (self->engines_spinner);
  {
    g_autofree char *base_url = g_settings_get_string (self->settings, "base-url");

    assay_keyring_lookup_async ("openai", base_url, self->cancellable, assay_preferences_openai_key_found_cb,
                                assay_preferences_weak_new (self));
  }
}

static void
assay_preferences_e2b_key_stored_cb (GObject      *source,
                                     GAsyncResult *result,
                                     gpointer      user_data)
{
  g_autoptr(AssayPreferences) self = user_data;
  g_autoptr(GError) error = NULL;

  if (assay_keyring_store_finish (result, &error))
    {
      /* The survey says now whether E2B takes the key. */
      if (gtk_widget_get_sensitive (self->engines_refresh_button))
        assay_preferences_engines_refresh_cb (self);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The key could not be stored in the keyring: %s"), error->message);

      adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), adw_toast_new (text));
    }
}

/* E2B's key goes to the keyring (provider "e2b", the domain as its base-url), never to the
 * settings. */
static void
assay_preferences_e2b_key_apply_cb (AssayPreferences *self)
{
  g_autofree char *domain = g_settings_get_string (self->settings, "e2b-domain");
  g_autofree char *key = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->e2b_key_row))));

  if (*key == '\0')
    return;
  g_strstrip (domain);
  assay_keyring_store_async ("e2b", domain, key, self->cancellable, assay_preferences_e2b_key_stored_cb,
                             g_object_ref (self));
  memset (key, 0, strlen (key));
  gtk_editable_set_text (GTK_EDITABLE (self->e2b_key_row), "");
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self),
                                    adw_toast_new (_("E2B key saved in the keyring")));
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
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, model_choice_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, model_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, model_spinner);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, model_status);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, base_url_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, api_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, key_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, max_steps_spin);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, auto_switch);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, fenced_switch);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, check_switch);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, backend_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, backend_reason_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, e2b_key_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, e2b_domain_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, e2b_template_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, engines_group);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, engines_searching_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, engines_spinner);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, engines_refresh_button);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, memory_spin);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, cpus_spin);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, timeout_spin);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, budget_spin);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, prices_group);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, user_prices_row);
  gtk_widget_class_bind_template_child (widget_class, AssayPreferences, reset_prices_button);
  gtk_widget_class_bind_template_callback (widget_class, assay_preferences_key_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_preferences_engines_refresh_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_preferences_e2b_key_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_preferences_add_price_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_preferences_reset_prices_cb);
}

static void
assay_preferences_init (AssayPreferences *self)
{
  static gboolean icons_added;

  /* The "Costs" page's icon, where no GtkApplication added the app's icons (tests). */
  if (!icons_added && gdk_display_get_default () != NULL)
    {
      icons_added = TRUE;
      gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                        "/org/assay/Assay/icons");
    }
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->settings = g_settings_new ("org.assay.Assay");

  g_settings_bind_with_mapping (self->settings, "provider", self->provider_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, assay_preferences_get_index, assay_preferences_set_index, providers, NULL);
  g_settings_bind (self->settings, "model", self->model_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "base-url", self->base_url_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (self->settings, "openai-api", self->api_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, assay_preferences_get_index, assay_preferences_set_index,
                                openai_apis, NULL);
  g_settings_bind_with_mapping (self->settings, "provider", self->api_row, "visible",
                                G_SETTINGS_BIND_GET, assay_preferences_get_is_openai, NULL, NULL, NULL);
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
  g_settings_bind (self->settings, "e2b-domain", self->e2b_domain_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "e2b-template", self->e2b_template_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "memory-mb", self->memory_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "cpus", self->cpus_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "cell-timeout", self->timeout_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "session-budget", self->budget_spin, "value", G_SETTINGS_BIND_DEFAULT);

  g_signal_connect_swapped (self->model_choice_row, "notify::selected",
                            G_CALLBACK (assay_preferences_model_chosen_cb), self);
  g_signal_connect_swapped (self->settings, "changed", G_CALLBACK (assay_preferences_settings_changed_cb), self);
  assay_preferences_list_models (self);

  self->price_rows = g_ptr_array_new ();
  self->own_prices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  assay_preferences_reload_prices (self);

  self->engine_rows = g_ptr_array_new ();
  assay_preferences_engines_refresh_cb (self);
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
