#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a corpus of odd and hostile delimited files, and a manifest of what
`assay-cli inspect` must find in each: python3 make-corpus.py DIR (stdlib only)."""

import io
import json
import os
import random
import struct
import sys
import zipfile

rng = random.Random(20240229)

RU_WORDS = ["Москва", "Санкт-Петербург", "Новосибирск", "Екатеринбург", "Казань",
            "молоко", "хлеб", "сыр", "масло", "яблоки", "поставщик", "оплата",
            "Иванов Пётр Сергеевич", "Смирнова Анна", "отгрузка со склада", "возврат товара",
            "ежемесячный отчёт", "счёт-фактура", "доставка курьером", "безналичный расчёт"]
FR_WORDS = ["café crème", "Müller GmbH", "Straße", "élève", "garçon", "déjà vu", "naïve",
            "Zürich", "Genève", "Besançon", "crème brûlée", "Ærøskøbing", "São Paulo", "façade"]


def ru_sentence():
    return " ".join(rng.choice(RU_WORDS) for _ in range(rng.randint(2, 5)))


def write(directory, name, data):
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def table(rows, sep=",", eol="\n"):
    return eol.join(sep.join(r) for r in rows) + eol


def fmt_num(x, decimal=".", thousands="", digits=2):
    s = f"{x:,.{digits}f}"
    return s.replace(",", "\x00").replace(".", decimal).replace("\x00", thousands)


def make(directory):
    cases = []

    def case(name, data, **expect):
        write(directory, name, data)
        cases.append({"file": name, **expect})

    # 1. Plain UTF-8 with every type.
    rows = [["id", "price", "active", "day", "stamp", "city"]]
    for i in range(200):
        rows.append([str(i + 1), f"{rng.uniform(1, 500):.2f}", rng.choice(["true", "false"]),
                     f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                     f"2024-03-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00",
                     rng.choice(["Paris", "Berlin", "Oslo", "Rome"])])
    case("basic.csv", table(rows).encode(), encoding="utf-8", delimiter=",", decimal=".",
         thousands=None, header=True, rows=200,
         types=["integer", "float", "boolean", "date", "datetime", "string"])

    # 2. Excel's "CSV" in Windows-1251: semicolons, decimal commas, NBSP thousands, CRLF.
    rows = [["Клиент", "Город", "Сумма", "Дата", "Комментарий"]]
    for i in range(150):
        rows.append([rng.choice(RU_WORDS[12:]), rng.choice(RU_WORDS[:5]),
                     fmt_num(rng.uniform(1000, 900000), ",", "\u00a0"),
                     f"{rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.2023", ru_sentence()])
    case("excel_ru_1251.csv", table(rows, ";", "\r\n").encode("cp1251"), encoding="windows-1251",
         delimiter=";", decimal=",", thousands="\u00a0", header=True, rows=150,
         types=["string", "string", "float", "date", "string"])

    # 3. KOI8-R, semicolons.
    rows = [["Товар", "Количество", "Склад"]]
    for i in range(120):
        rows.append([ru_sentence(), str(rng.randint(1, 99)), rng.choice(RU_WORDS[:5])])
    case("koi8r.csv", table(rows, ";").encode("koi8_r"), encoding="koi8-r", delimiter=";",
         header=True, rows=120, types=["string", "integer", "string"])

    # 4. Latin-1, commas.
    rows = [["nom", "ville", "note"]]
    for i in range(120):
        rows.append([rng.choice(FR_WORDS), rng.choice(FR_WORDS), f"{rng.uniform(0, 20):.1f}"])
    case("latin1.csv", table(rows).encode("latin-1"), encoding=["iso-8859-1", "windows-1252"],
         delimiter=",", decimal=".", header=True, rows=120, types=["string", "string", "float"])

    # 5. UTF-16LE with BOM, tab-separated (Excel "Unicode text").
    rows = [["Name", "Qty", "Город"]]
    for i in range(80):
        rows.append([rng.choice(FR_WORDS), str(rng.randint(1, 1000)), rng.choice(RU_WORDS[:5])])
    case("unicode_text.txt", table(rows, "\t", "\r\n").encode("utf-16"), encoding="utf-16le",
         delimiter="\t", header=True, rows=80, types=["string", "integer", "string"])

    # 6. UTF-16BE without BOM, tabs.
    case("utf16be.tsv", table(rows, "\t").encode("utf-16-be"), encoding="utf-16be",
         delimiter="\t", header=True, rows=80, types=["string", "integer", "string"])

    # 7. UTF-32LE with BOM.
    case("utf32.csv", table([r for r in rows], ",").encode("utf-32"), encoding="utf-32le",
         delimiter=",", header=True, rows=80, types=["string", "integer", "string"])

    # 8. UTF-8 with a BOM.
    rows = [["a", "b"]] + [[str(i), rng.choice(FR_WORDS)] for i in range(50)]
    case("utf8_bom.csv", b"\xef\xbb\xbf" + table(rows).encode(), encoding="utf-8", bom=True,
         delimiter=",", header=True, rows=50, types=["integer", "string"])

    # 9. Quoted newlines and doubled quotes.
    out = io.StringIO()
    out.write('id,comment,score\n')
    for i in range(60):
        text = rng.choice(['plain', 'two\nlines', 'say ""hi""', 'comma, inside', 'three\r\nline\nbreaks'])
        out.write(f'{i},"{text}",{rng.randint(0, 9)}\n')
    case("quoted_newlines.csv", out.getvalue().encode(), delimiter=",", header=True, rows=60,
         types=["integer", "string", "integer"])

    # 10. UTF-8 with NBSP thousands and decimal commas.
    rows = [["produit", "montant", "quantité"]]
    for i in range(100):
        rows.append([rng.choice(FR_WORDS), fmt_num(rng.uniform(1000, 5e6), ",", "\u00a0"),
                     fmt_num(rng.randint(1000, 99999), ",", "\u00a0", 0)])
    case("nbsp_thousands.csv", table(rows, ";").encode(), encoding="utf-8", delimiter=";",
         decimal=",", thousands="\u00a0", header=True, rows=100, types=["string", "float", "integer"])

    # 11. US thousands in quotes.
    rows = [["item", "amount"]]
    for i in range(100):
        rows.append([f"item {i}", '"' + fmt_num(rng.uniform(1000, 5e6), ".", ",") + '"'])
    case("us_thousands.csv", table(rows).encode(), delimiter=",", decimal=".", thousands=",",
         header=True, rows=100, types=["string", "float"])

    # 12. Dot thousands, comma decimals.
    rows = [["Artikel", "Preis"]]
    for i in range(100):
        rows.append([rng.choice(FR_WORDS), fmt_num(rng.uniform(1000, 5e6), ",", ".")])
    case("de_thousands.csv", table(rows, ";").encode(), delimiter=";", decimal=",", thousands=".",
         header=True, rows=100, types=["string", "float"])

    # 13. Apostrophe thousands (Swiss), pipe-delimited.
    rows = [["Ort", "Betrag"]]
    for i in range(100):
        rows.append([rng.choice(FR_WORDS), fmt_num(rng.uniform(1000, 5e6), ".", "'")])
    case("swiss.psv", table(rows, "|").encode(), delimiter="|", decimal=".", thousands="'",
         header=True, rows=100, types=["string", "float"])

    # 14. Plain space thousands with integers.
    rows = [["region", "population"]]
    for i in range(100):
        rows.append([rng.choice(FR_WORDS), fmt_num(rng.randint(1000, 9000000), ".", " ", 0)])
    case("space_thousands.csv", table(rows, ";").encode(), delimiter=";", thousands=" ",
         header=True, rows=100, types=["string", "integer"])

    # 15. No header.
    rows = [[str(rng.randint(0, 100)), f"{rng.uniform(0, 1):.4f}", f"2023-01-{rng.randint(1, 28):02d}"]
            for _ in range(90)]
    case("noheader.csv", table(rows).encode(), delimiter=",", header=False, rows=90,
         types=["integer", "float", "date"], names=["column_1", "column_2", "column_3"])

    # 16. Dates month first, with the ambiguity resolved by the data.
    rows = [["when", "n"]] + [[f"{rng.randint(1, 12):02d}/{rng.randint(13, 28):02d}/2024", str(i)] for i in range(60)]
    case("mdy.csv", table(rows).encode(), delimiter=",", header=True, rows=60,
         types=["date", "integer"], date_order="month first")
    rows = [["when", "n"]] + [[f"{rng.randint(13, 28):02d}/{rng.randint(1, 12):02d}/2024", str(i)] for i in range(60)]
    case("dmy.csv", table(rows).encode(), delimiter=",", header=True, rows=60,
         types=["date", "integer"], date_order="day first")

    # 17. Currency signs.
    rows = [["sku", "price", "cost"]]
    for i in range(80):
        rows.append([f"A{i:04d}", "$" + fmt_num(rng.uniform(1, 90000), ".", ","),
                     fmt_num(rng.uniform(1, 900), ".", "") + " €"])
    case("currency.csv", table(rows, ";").encode(), delimiter=";", decimal=".", header=True, rows=80,
         types=["string", "float", "float"], warning="currency")

    # 18. Datetimes with time zones.
    rows = [["ts", "v"]] + [[f"2024-05-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:15:00+03:00", str(i)]
                            for i in range(50)]
    case("tz.csv", table(rows).encode(), delimiter=",", header=True, rows=50, types=["datetime", "integer"])

    # 19. Old Mac line endings.
    rows = [["x", "y"]] + [[str(i), str(i * i)] for i in range(40)]
    case("cr_only.csv", table(rows, ",", "\r").encode(), delimiter=",", header=True, rows=40,
         types=["integer", "integer"], line_ending="cr")

    # 20. Trailing blank lines.
    case("trailing_blank.csv", table(rows).encode() + b"\n\n\n", delimiter=",", header=True, rows=40,
         types=["integer", "integer"], trailing_blank_lines=3)

    # 21. Ragged rows: some short, some long.
    lines = ["a,b,c"]
    for i in range(100):
        if i in (10, 20, 30):
            lines.append(f"{i},{i}")
        elif i in (50, 70):
            lines.append(f"{i},{i},{i},{i}")
        else:
            lines.append(f"{i},x{i},{i}.5")
    case("ragged.csv", ("\n".join(lines) + "\n").encode(), delimiter=",", header=True, rows=98,
         types=["integer", "string", "float"], warning="fewer fields")

    # 22. Lines ending with the delimiter.
    lines = ["a;b;c"] + [f"{i};{i * 2};z{i};" for i in range(70)]
    case("trailing_delimiter.csv", ("\n".join(lines) + "\n").encode(), delimiter=";", header=True,
         rows=70, types=["integer", "integer", "string"])

    # 23. Backslash-escaped quotes.
    lines = ["id,quote"] + [f'{i},"she said \\"hi {i}\\" loudly"' for i in range(50)]
    case("backslash.csv", ("\n".join(lines) + "\n").encode(), delimiter=",", header=True, rows=50,
         types=["integer", "string"], escape="backslash")

    # 24. A single huge field.
    case("huge_field.csv", b"id,blob\n1,short\n2,\"" + b"x" * (3 * 1024 * 1024) + b"\"\n3,end\n",
         delimiter=",", header=True, rows=3, types=["integer", "string"], warning="very large field")

    # 25. A wide table.
    header = [f"c{i}" for i in range(300)]
    rows = [header] + [[str(rng.randint(0, 9)) if i % 2 else f"{rng.random():.3f}" for i in range(300)]
                       for _ in range(30)]
    case("wide.csv", table(rows).encode(), delimiter=",", header=True, rows=30,
         types=["float" if i % 2 == 0 else "integer" for i in range(300)])

    # 26. Colon- and tilde-delimited.
    rows = [["k", "v", "w"]] + [[f"k{i}", str(i), f"{i}.25"] for i in range(40)]
    case("colon.txt", table(rows, ":").encode(), delimiter=":", header=True, rows=40,
         types=["string", "integer", "float"])

    # 27. Nulls in pandas' spellings.
    rows = [["a", "b"]] + [[rng.choice(["1", "2", "NA", "", "null", "NaN"]), "t"] for _ in range(60)]
    case("nulls.csv", table(rows).encode(), delimiter=",", header=True, rows=60,
         types=["integer", "string"])

    # 27b. Excel's "sep=" hint line.
    rows = [["Name", "Wert"]] + [[rng.choice(FR_WORDS), fmt_num(rng.uniform(0, 100), ",", "")] for _ in range(30)]
    case("excel_sep_hint.csv", ("sep=;\r\n" + table(rows, ";", "\r\n")).encode("cp1252"), delimiter=";",
         decimal=",", header=True, rows=30, types=["string", "float"], warning="sep=;")

    # 28. Excel workbooks: deflated and stored.
    for name, method in (("workbook.xlsx", zipfile.ZIP_DEFLATED), ("stored.xlsx", zipfile.ZIP_STORED)):
        buffer = io.BytesIO()
        ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
        rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
        sheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet ' + ns + '>'
                 '<dimension ref="{dim}"/><sheetData>{rows}</sheetData></worksheet>')
        row = '<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>{a}</t></is></c><c r="B{r}"><v>{b}</v></c></row>'
        with zipfile.ZipFile(buffer, "w", method) as z:
            z.writestr("[Content_Types].xml",
                       '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                       '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                       '<Default Extension="xml" ContentType="application/xml"/>'
                       '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
                       '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
                       '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
                       '</Types>')
            z.writestr("_rels/.rels",
                       '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                       '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                       f'<Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
            z.writestr("xl/workbook.xml",
                       '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                       '<workbook ' + ns + f' xmlns:r="{rel}">'
                       '<sheets><sheet name="Продажи" sheetId="1" r:id="rId1"/>'
                       '<sheet name="Q&amp;A 2024" sheetId="2" r:id="rId2"/></sheets></workbook>')
            z.writestr("xl/_rels/workbook.xml.rels",
                       '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                       '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                       f'<Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/>'
                       f'<Relationship Id="rId2" Type="{rel}/worksheet" Target="worksheets/sheet2.xml"/></Relationships>')
            z.writestr("xl/worksheets/sheet1.xml",
                       sheet.format(dim="A1:B3", rows="".join(row.format(r=r, a=f"город {r}", b=r * 10) for r in range(1, 4))))
            z.writestr("xl/worksheets/sheet2.xml",
                       sheet.format(dim="A1:B2", rows="".join(row.format(r=r, a=f"q{r}", b=r) for r in range(1, 3))))
        case(name, buffer.getvalue(), format="xlsx", sheets=["Продажи", "Q&A 2024"],
             dimensions=["A1:B3", "A1:B2"])

    # Hostile input: each must fail with a specific reason.
    case("empty.csv", b"", error="empty")
    case("blank_lines.csv", b"\n\n  \n", error="empty")
    case("image.csv", b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(4000)), error="PNG")
    case("random.bin", bytes(rng.randrange(256) for _ in range(20000)), error="binary")
    case("prose.txt", ("It was a bright cold day in April, and the clocks were striking thirteen. " * 3 + "\n").encode() * 40,
         error="prose")
    case("data.json.csv", b'[{"a": 1, "b": 2},\n {"a": 3, "b": 4}]\n', error="JSON")
    case("unterminated.csv", b'a,b\n1,2\n3,"open\n4,5\n6,7\n', error="line 3")
    case("nul.csv", b"a,b\n1,2\n3,\x004\n", error="NUL")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("readme.txt", "not a workbook")
    case("not_a_workbook.xlsx", buffer.getvalue(), error="workbook")
    case("truncated.xlsx", b"PK\x03\x04" + b"\x00" * 40, error="zip")
    case("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600, error=".xls")
    case("inconsistent.csv", ("\n".join(",".join("x" * (1 + (i * j) % 3) for j in range(1 + (i * 7) % 12))
                                          for i in range(100)) + "\n").encode(), error="not a table")

    with open(os.path.join(directory, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    os.makedirs(sys.argv[1], exist_ok=True)
    make(sys.argv[1])
