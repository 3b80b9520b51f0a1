/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every icon name the app uses resolves, under that exact name, in the icon theme installed
 * here (Adwaita 43 on Debian 12) or in the app's resource bundle: no image-missing, and no
 * symbolic name falling back to a full-colour icon (issue 18). The names are read from the
 * sources: icon-name properties of the .ui files, and the string literals of the .c files'
 * statements that set an icon name or name a symbolic icon. */
#include "config.h"

#include <string.h>

#include "assay-app-types.h"
#include "gui-test-util.h"

/* Names in the sources that are not icons of ours to resolve: made at run time from a
 * content type, or checked by the code before use. */
static const char * const not_icons[] = { "icon-name", NULL };

static void
add_names (GHashTable *names,
           GRegex     *regex,
           const char *text,
           const char *path)
{
  g_autoptr(GMatchInfo) match = NULL;

  g_regex_match (regex, text, 0, &match);
  while (g_match_info_matches (match))
    {
      g_autofree char *name = g_match_info_fetch (match, 1);

      if (!g_strv_contains (not_icons, name) && !g_hash_table_contains (names, name))
        g_hash_table_insert (names, g_steal_pointer (&name), g_strdup (path));
      g_match_info_next (match, NULL);
    }
}

/* A .c file's statements that set an icon by name: every string literal in them that looks
 * like an icon name ("ok ? \"object-select-symbolic\" : \"dialog-error-symbolic\""). */
static void
add_c_names (GHashTable *names,
             const char *text,
             const char *path)
{
  g_autoptr(GRegex) statement = g_regex_new ("[^;{}]*(icon_name \\(|\"icon-name\")[^;]*;", 0, 0, NULL);
  g_autoptr(GRegex) literal = g_regex_new ("\"([a-z][a-z0-9]*(-[a-z0-9]+)+)\"", 0, 0, NULL);
  g_autoptr(GRegex) symbolic = g_regex_new ("\"([a-z][a-z0-9-]*-symbolic)\"", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;

  add_names (names, symbolic, text, path);
  g_regex_match (statement, text, 0, &match);
  while (g_match_info_matches (match))
    {
      g_autofree char *found = g_match_info_fetch (match, 0);

      add_names (names, literal, found, path);
      g_match_info_next (match, NULL);
    }
}

static void
scan (GHashTable *names,
      const char *dir)
{
  g_autoptr(GDir) folder = g_dir_open (dir, 0, NULL);
  g_autoptr(GRegex) property = g_regex_new ("<property name=\"icon[-_]name\"[^>]*>\\s*([^<\\s]+)\\s*</property>",
                                            0, 0, NULL);
  const char *entry;

  g_assert_nonnull (folder);
  while ((entry = g_dir_read_name (folder)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, entry, NULL);
      g_autofree char *text = NULL;

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          if (g_strcmp0 (entry, "icons") != 0)
            scan (names, path);
          continue;
        }
      if (!g_str_has_suffix (entry, ".ui") && !g_str_has_suffix (entry, ".c"))
        continue;
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      if (g_str_has_suffix (entry, ".ui"))
        add_names (names, property, text, path);
      else
        add_c_names (names, text, path);
    }
}

static void
test_icons_resolve (void)
{
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());
  g_autoptr(GString) missing = g_string_new (NULL);
  GHashTableIter iter;
  gpointer name, path;

  /* Where AdwApplication looks, from the application's resource base path. */
  gtk_icon_theme_add_resource_path (theme, "/org/assay/Assay/icons");
  scan (names, ASSAY_APP_SOURCE_DIR);
  /* The scan finds what the issue named, so it reads the sources it should. */
  g_assert_true (g_hash_table_contains (names, "chat-symbolic"));
  g_assert_true (g_hash_table_contains (names, "view-conceal-symbolic"));
  g_assert_true (g_hash_table_contains (names, "object-select-symbolic"));
  g_assert_true (g_hash_table_contains (names, "text-x-generic"));
  g_assert_cmpuint (g_hash_table_size (names), >, 30);

  g_hash_table_iter_init (&iter, names);
  while (g_hash_table_iter_next (&iter, &name, &path))
    {
      if (!gtk_icon_theme_has_icon (theme, name))
        g_string_append_printf (missing, "\n  %s (%s)", (char *) name, (char *) path);
      else if (g_str_has_suffix (name, "-symbolic"))
        {
          g_autoptr(GtkIconPaintable) icon = gtk_icon_theme_lookup_icon (theme, name, NULL, 16, 1,
                                                                         GTK_TEXT_DIR_NONE, 0);

          if (!gtk_icon_paintable_is_symbolic (icon))
            g_string_append_printf (missing, "\n  %s (%s) is not symbolic", (char *) name, (char *) path);
        }
    }
  if (missing->len > 0)
    g_error ("icons that are neither in the theme “%s” nor in the bundle:%s",
             gtk_icon_theme_get_theme_name (theme), missing->str);
}

/* The bundle's own icons are all listed in the resource bundle and load as symbolic icons. */
static void
test_bundle_icons (void)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) bundled = g_resources_enumerate_children ("/org/assay/Assay/icons/scalable/actions", 0, &error);
  g_autofree char *folder = g_build_filename (ASSAY_APP_SOURCE_DIR, "icons", "scalable", "actions", NULL);
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  const char *entry;

  g_assert_no_error (error);
  g_assert_nonnull (dir);
  while ((entry = g_dir_read_name (dir)) != NULL)
    if (!g_strv_contains ((const char * const *) bundled, entry))
      g_error ("%s is in icons/ but not in assay.gresource.xml", entry);
  for (guint i = 0; bundled[i] != NULL; i++)
    {
      g_autofree char *path = g_strconcat ("/org/assay/Assay/icons/scalable/actions/", bundled[i], NULL);
      g_autoptr(GdkTexture) texture = gdk_texture_new_from_resource (path);

      g_assert_true (g_str_has_suffix (bundled[i], "-symbolic.svg"));
      g_assert_cmpint (gdk_texture_get_width (texture), ==, 16);
    }
}

int
main (int   argc,
      char *argv[])
{
  gui_test_init (&argc, &argv);
  g_test_add_func ("/assay/app/icons/resolve", test_icons_resolve);
  g_test_add_func ("/assay/app/icons/bundle", test_bundle_icons);
  return g_test_run ();
}
