#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes corpus.json: answers and the outputs of their cells, with the numbers each answer
# claims (in order) and the cell that printed each, or None for a number no cell printed.
# Output specs: "stdout:", "stderr:", "plain:" (text/plain), "html:" (text/html), "error:".
import json
import os
C=[]
def case(name, answer, cells, numbers):
    C.append({"name":name,"answer":answer,"cells":cells,"numbers":numbers})

T1 = "  region  stores    revenue  share\n0      A       7  1320123.6   80.3\n1      B       3   331470.0   19.7\n"
# ---- English: plain values and rounding
case("integer rounds down", "Total revenue was EUR 475,046.", [["c1",["stdout:475046.3\n"]]], [["475,046","c1"]])
case("integer rounds up", "Revenue came to $475,047 overall.", [["c1",["stdout:475046.7\n"]]], [["475,047","c1"]])
case("decimal exact", "The mean basket is 37.42 EUR.", [["c1",["plain:37.42"]]], [["37.42","c1"]])
case("decimal rounded", "The mean basket is 37.4 EUR.", [["c1",["plain:37.4213"]]], [["37.4","c1"]])
case("more precise than printed", "The mean basket is 37.4213 EUR.", [["c1",["plain:37.42"]]], [["37.4213",None]])
case("invented integer", "We served 12,480 customers.", [["c1",["stdout:customers 12408\n"]]], [["12,480",None]])
case("invented decimal", "Churn was 4.7 per 1000.", [["c1",["stdout:churn 4.1\n"]]], [["4.7",None],["1000",None]])
case("dataframe line", "Region A has 7 stores and EUR 1,320,124 in revenue, 80.3% of the total.", [["c1",["plain:"+T1]]], [["7","c1"],["1,320,124","c1"],["80.3%","c1"]])
case("table second row", "Region B: 3 stores, 331,470 revenue (19.7%).", [["c1",["plain:"+T1]]], [["3","c1"],["331,470","c1"],["19.7%","c1"]])
case("latest cell wins", "The final figure is 1,204.", [["c1",["stdout:1204\n"]],["c2",["stdout:total 1204\n"]]], [["1,204","c2"]])
case("earlier cell only", "The first count was 88,120 rows.", [["c1",["stdout:88120\n"]],["c2",["stdout:done\n"]]], [["88,120","c1"]])
# ---- percentages
case("percent vs percent", "Share grew to 24.0%.", [["c1",["stdout:share 24.0\n"]]], [["24.0%","c1"]])
case("percent vs fraction", "Share grew to 24.0%.", [["c1",["stdout:share 0.2398\n"]]], [["24.0%","c1"]])
case("percent integer vs fraction", "About 24% of orders were returned.", [["c1",["plain:0.2412"]]], [["24%","c1"]])
case("percent word", "Returns were 3.5 percent.", [["c1",["plain:0.035"]]], [["3.5 percent","c1"]])
case("percent spaced", "Returns were 3.5 % of sales.", [["c1",["plain:3.5"]]], [["3.5 %","c1"]])
case("percent invented", "Margin is 31.2%.", [["c1",["plain:0.2987"]]], [["31.2%",None]])
case("percent negative fraction", "Sales fell by 5.2% in the south.", [["c1",["stdout:south -0.0521\n"]]], [["5.2%","c1"]])
case("percent signed", "Growth was −5.2% year over year.", [["c1",["stdout:growth -5.2\n"]]], [["−5.2%","c1"]])
case("plus sign", "Net change: +12.5% against last month.", [["c1",["stdout:12.5\n"]]], [["+12.5%","c1"]])
case("signed mismatch", "Growth was +5.2%.", [["c1",["stdout:-5.2\n"]]], [["+5.2%",None]])
# ---- magnitudes
case("M suffix", "Total revenue reached 1.65M.", [["c1",["stdout:1651593.25\n"]]], [["1.65M","c1"]])
case("million word", "Total revenue reached 1.7 million euros.", [["c1",["stdout:1651593.25\n"]]], [["1.7 million","c1"]])
case("k suffix", "About 12k users signed up.", [["c1",["stdout:users 12034\n"]]], [["12k","c1"]])
case("bn", "Market size is 3.2bn.", [["c1",["stdout:3204000000\n"]]], [["3.2bn","c1"]])
case("magnitude invented", "Total revenue reached 1.85M.", [["c1",["stdout:1651593.25\n"]]], [["1.85M",None]])
case("scientific output", "Revenue was 1,651,593.", [["c1",["plain:1.651593e+06"]]], [["1,651,593","c1"]])
case("billion word", "Assets total 2 billion dollars.", [["c1",["stdout:2000000000.0\n"]]], [["2 billion","c1"]])
# ---- separators
case("space groups", "Revenue: 475 046 EUR.", [["c1",["stdout:475046.3\n"]]], [["475 046","c1"]])
case("nbsp groups", "Revenue: 475\u00a0046 EUR.", [["c1",["stdout:475046.3\n"]]], [["475\u00a0046","c1"]])
case("narrow nbsp groups", "Revenue: 475\u202f046 EUR.", [["c1",["stdout:475046.3\n"]]], [["475\u202f046","c1"]])
case("apostrophe groups", "Revenue: CHF 1'234'567.", [["c1",["stdout:1234567\n"]]], [["1'234'567","c1"]])
case("dot groups", "Umsatz: 1.234.567 EUR.", [["c1",["stdout:1234567\n"]]], [["1.234.567","c1"]])
case("comma groups with decimals", "Revenue was $1,234,567.89.", [["c1",["stdout:1234567.89\n"]]], [["1,234,567.89","c1"]])
case("grouped output", "Revenue was 475,046.30.", [["c1",["stdout:Revenue: 475,046.30\n"]]], [["475,046.30","c1"]])
# ---- ranges
case("range dash percent", "Most regions grew 3–5%.", [["c1",["stdout:0.031 0.049\n"]]], [["3","c1"],["5%","c1"]])
case("range hyphen", "Orders took 15-20 days.", [["c1",["stdout:min 15 max 20\n"]]], [["15","c1"],["20","c1"]])
case("range one invented", "Baskets range from 12 to 95 EUR.", [["c1",["stdout:min 12.0 max 87.5\n"]]], [["12","c1"],["95",None]])
case("range million", "Visits were between 10 – 15 million.", [["c1",["stdout:10000000 15000000\n"]]], [["10","c1"],["15 million","c1"]])
# ---- things to skip
case("iso date", "On 2024-03-15 sales peaked at 9,120.", [["c1",["stdout:9120\n"]]], [["9,120","c1"]])
case("dotted date", "On 15.03.2024 sales peaked at 9,120.", [["c1",["stdout:9120\n"]]], [["9,120","c1"]])
case("slash date", "Since 03/15/2024, 410 orders.", [["c1",["stdout:410\n"]]], [["410","c1"]])
case("month day", "On March 15 we sold 310 units; by 31 March, 1,020.", [["c1",["stdout:310\n1020\n"]]], [["310","c1"],["1,020","c1"]])
case("year", "In 2023 revenue was 1.2M, up from 2022.", [["c1",["stdout:1204331\n"]]], [["1.2M","c1"]])
case("month year", "In March 2024 there were 88 returns.", [["c1",["stdout:88\n"]]], [["88","c1"]])
case("time", "The peak hour is 14:30 with 57 orders.", [["c1",["stdout:57\n"]]], [["57","c1"]])
case("code span", "I computed `df.groupby('region').sum()` and `x = 42`: 1,204 rows.", [["c1",["stdout:1204\n"]]], [["1,204","c1"]])
case("code block", "Result: 77 rows.\n\n```python\nprint(len(df[df.x > 100]))\n```\n", [["c1",["stdout:77\n"]]], [["77","c1"]])
case("identifiers", "Cells c4 and c12 use col_2, Q3 and H1; COVID-19 cases were 4,510.", [["c1",["stdout:4510\n"]]], [["4,510","c1"]])
case("step references", "In step 2 and cell 4 (see figure 3) I found 612 duplicates.", [["c1",["stdout:612\n"]]], [["612","c1"]])
case("ordered list", "Findings:\n\n1. Revenue grew 12.5%.\n2. Returns fell to 3.1%.\n3. 4 regions declined.\n", [["c1",["stdout:12.5 3.1 4\n"]]], [["12.5%","c1"],["3.1%","c1"],["4","c1"]])
case("heading number", "## 1. Overview\n\nThe file has 12,050 rows.\n", [["c1",["stdout:12050\n"]]], [["12,050","c1"]])
case("ordinals", "The 3rd region is 4th by revenue, with 20,100.", [["c1",["stdout:20100\n"]]], [["20,100","c1"]])
case("hash and numero", "Issue #42 and store № 5 show 17.5% returns.", [["c1",["stdout:17.5\n"]]], [["17.5%","c1"]])
case("version and ip", "pandas 2.1.4 on 10.0.0.1 read 1,000 rows.", [["c1",["stdout:1000\n"]]], [["1,000","c1"]])
case("bare link", "See https://example.com/reports/2024/7 for the 320 rows.", [["c1",["stdout:320\n"]]], [["320","c1"]])
case("link text kept", "The [320 rows](https://example.com/r/5) were read.", [["c1",["stdout:320\n"]]], [["320","c1"]])
case("image alt", "![chart of 12 regions](chart_3.png) shows 12 regions.", [["c1",["stdout:12\n"]]], [["12","c1"]])
case("units attached", "Load time is 10ms; the file is 3D; 250 rows loaded.", [["c1",["stdout:250\n"]]], [["250","c1"]])
# ---- small integers
case("small integer exact", "There are 3 regions.", [["c1",["stdout:3\n"]]], [["3","c1"]])
case("small integer not rounded", "There are 3 regions.", [["c1",["stdout:2.8\n"]]], [["3",None]])
case("small integer invented", "There are 5 regions.", [["c1",["stdout:regions 4\n"]]], [["5",None]])
# ---- tables in the answer
case("markdown table", "| Region | Revenue | Share |\n|---|---|---|\n| A | 1,320,124 | 80.3% |\n| B | 331,470 | 19.7% |\n", [["c1",["plain:"+T1]]], [["1,320,124","c1"],["80.3%","c1"],["331,470","c1"],["19.7%","c1"]])
case("markdown table invented cell", "| Region | Revenue |\n|---|---|\n| A | 1,320,124 |\n| B | 350,000 |\n", [["c1",["plain:"+T1]]], [["1,320,124","c1"],["350,000",None]])
case("html dataframe", "Region A earned 1,320,124 (80.3%).", [["c1",["html:<table class=\"dataframe\"><thead><tr><th></th><th>region</th><th>revenue</th><th>share</th></tr></thead><tbody><tr><th>0</th><td>A</td><td>1320123.6</td><td>80.3</td></tr></tbody></table>"]]], [["1,320,124","c1"],["80.3%","c1"]])
# ---- what is not looked in
case("stderr ignored", "Skipped 14 bad lines.", [["c1",["stderr:Skipping 14 bad lines\n"]]], [["14",None]])
case("traceback ignored", "The value is 1,337.", [["c1",["error:ValueError: 1337 is not allowed"]]], [["1,337",None]])
case("other cells of the question only", "There were 4,200 orders.", [["c1",["stdout:4199.6\n"]]], [["4,200","c1"]])
case("no cells", "There were 4,200 orders.", [], [["4,200",None]])
case("no numbers", "The data looks clean; nothing stands out.", [["c1",["stdout:1 2 3\n"]]], [])
# ---- currency
case("currency prefix", "Average order: $54.20, median €48, max £1,020.", [["c1",["stdout:54.2 48.0 1020\n"]]], [["54.20","c1"],["48","c1"],["1,020","c1"]])
case("currency suffix ru style", "Average order: 54.20 USD, 48 EUR.", [["c1",["stdout:54.2 48\n"]]], [["54.20","c1"],["48","c1"]])
case("negative currency", "Net loss was -$1,200 in Q4.", [["c1",["stdout:-1200\n"]]], [["1,200","c1"]])
case("dollar signs", "Prices were $5 and $10, or $15 together.", [["c1",["stdout:5 10 15\n"]]], [["5","c1"],["10","c1"],["15","c1"]])
case("raw html", "Revenue was <b>475,046</b> EUR.", [["c1",["stdout:475046.3\n"]]], [["475,046","c1"]])
case("emphasis", "Revenue was **475,046** and *24.0%* of the total.", [["c1",["stdout:475046.3 0.24\n"]]], [["475,046","c1"],["24.0%","c1"]])
case("times multiplier", "Region A sells 4.0x more than B.", [["c1",["stdout:3.98\n"]]], [["4.0x","c1"]])
# ---- Russian
case("ru decimal comma", "Средний чек составил 37,4 руб.", [["c1",["plain:37.4213"]]], [["37,4","c1"]])
case("ru space groups", "Выручка составила 475 046 руб.", [["c1",["stdout:475046.3\n"]]], [["475 046","c1"]])
case("ru nbsp groups and decimal", "Выручка — 1\u00a0651\u00a0593,25 руб.", [["c1",["stdout:1651593.25\n"]]], [["1\u00a0651\u00a0593,25","c1"]])
case("ru percent", "Доля выросла до 24,0 %.", [["c1",["stdout:0.2398\n"]]], [["24,0 %","c1"]])
case("ru тыс", "Продано 12 тыс. единиц.", [["c1",["stdout:12034\n"]]], [["12 тыс.","c1"]])
case("ru млн", "Выручка — 1,65 млн руб.", [["c1",["stdout:1651593.25\n"]]], [["1,65 млн","c1"]])
case("ru млрд", "Рынок — 3,2 млрд руб.", [["c1",["stdout:3204000000\n"]]], [["3,2 млрд","c1"]])
case("ru invented", "Выручка составила 480 000 руб.", [["c1",["stdout:475046.3\n"]]], [["480 000",None]])
case("ru dates", "15 марта 2024 г. продано 310 единиц, в марте 2024 — 1 020.", [["c1",["stdout:310\n1020\n"]]], [["310","c1"],["1 020","c1"]])
case("ru dotted date", "С 01.03.2024 по 31.03.2024 заказов: 4 510.", [["c1",["stdout:4510\n"]]], [["4 510","c1"]])
case("ru step", "На шаге 2 в ячейке 4 найдено 612 дубликатов.", [["c1",["stdout:612\n"]]], [["612","c1"]])
case("ru negative", "Продажи упали на −5,2 %.", [["c1",["stdout:-0.052\n"]]], [["−5,2 %","c1"]])
case("ru range", "Рост составил 3–5 %.", [["c1",["stdout:0.03 0.05\n"]]], [["3","c1"],["5 %","c1"]])
case("ru ordinal", "3-й регион даёт 20 100 руб.", [["c1",["stdout:20100\n"]]], [["20 100","c1"]])
case("ru table", "| Регион | Выручка |\n|---|---|\n| A | 1 320 124 |\n| B | 331 470 |\n", [["c1",["plain:"+T1]]], [["1 320 124","c1"],["331 470","c1"]])
case("ru percent word", "Возвраты — 3,5 процента.", [["c1",["plain:0.035"]]], [["3,5 процента","c1"]])
case("ru latest cell", "Итог: 1 204 строки.", [["c1",["stdout:1204\n"]],["c2",["stdout:1204\n"]]], [["1 204","c2"]])
case("ru year", "В 2023 году выручка — 1,2 млн.", [["c1",["stdout:1204331\n"]]], [["1,2 млн.","c1"]])
# ---- more English variety
case("count with words", "Of 12,050 rows, 312 had missing prices and 0 had negative ones.", [["c1",["stdout:12050\n312\n0\n"]]], [["12,050","c1"],["312","c1"],["0","c1"]])
case("ratio percent to count", "312 rows (2.6%) had missing prices.", [["c1",["stdout:312 0.02589\n"]]], [["312","c1"],["2.6%","c1"]])
case("decimal zero padding", "The rate is 0.50.", [["c1",["stdout:0.5\n"]]], [["0.50","c1"]])
case("negative value unsigned claim", "The correlation is 0.42 (negative).", [["c1",["stdout:-0.4213\n"]]], [["0.42","c1"]])
case("pp", "Share rose 2.1 pp to 26.1%.", [["c1",["stdout:2.1 26.1\n"]]], [["2.1","c1"],["26.1%","c1"]])
case("parenthesised negative", "Net: (-1,200) after costs of 3,400.", [["c1",["stdout:-1200 3400\n"]]], [["-1,200","c1"],["3,400","c1"]])
case("quarter and year", "Q3 2024 revenue was 410,300.", [["c1",["stdout:410300\n"]]], [["410,300","c1"]])
case("many invented", "Mean 10.5, median 9.8, p90 21.3, max 40.2.", [["c1",["stdout:mean 10.5 median 9.8\n"]]], [["10.5","c1"],["9.8","c1"],["21.3",None],["40.2",None]])
case("index numbers are printed", "The 10 largest orders.", [["c1",["plain:   order_id  amount\n0        4    12.0\n"]]], [["10",None]])
case("blockquote", "> Revenue was 475,046.\n", [["c1",["stdout:475046.3\n"]]], [["475,046","c1"]])
case("bullet list", "- 12 regions\n- 3,400 orders\n- 24.0% share\n", [["c1",["stdout:12 3400 0.2398\n"]]], [["12","c1"],["3,400","c1"],["24.0%","c1"]])

# ---- places: only what the model read; the label the answer names; crowds of numbers
# A cell's third member: bytes of its output the model read (head and tail). A number's third
# member: "line N" (the label named), "ambiguous", "weak".
R3 = "North: 100\nWest: 100\nSouth: 90\n"
T2 = "  region  stores  revenue\n0   East       7   1200.5\n1   West       7    980.0\n2  North       4   1510.0\n"
LONG = "head 4321\n" + "filler x\n" * 60 + "hidden 987654\n" + "filler y\n" * 60 + "tail 5678\n"
case("label names the line", "West sold 100 units, as many as anyone.", [["c1",["stdout:"+R3]]], [["100","c1","line 2"]])
case("label after the number", "The best was 100, in North.", [["c1",["stdout:"+R3]]], [["100","c1","line 1"]])
case("value under two labels", "Two regions sold 100 units.", [["c1",["stdout:"+R3]]], [["100","c1","ambiguous"]])
case("table row named", "East has 7 stores.", [["c1",["plain:"+T2]]], [["7","c1","line 2"]])
case("table row not named", "Two regions have 7 stores each.", [["c1",["plain:"+T2]]], [["7","c1","ambiguous"]])
case("table other column named", "North earned 1,510 with 4 stores.", [["c1",["plain:"+T2]]], [["1,510","c1","line 4"],["4","c1","line 4"]])
case("earlier cell by its label", "The file has 1,204 rows.", [["c1",["stdout:rows: 1204\n"]],["c2",["stdout:customers: 1204\n"]]], [["1,204","c1","line 1"]])
case("later cell by its label", "There are 1,204 customers.", [["c1",["stdout:rows: 1204\n"]],["c2",["stdout:customers: 1204\n"]]], [["1,204","c2","line 1"]])
case("same label twice", "Revenue was 8,120.", [["c1",["stdout:revenue 8120\n"]],["c2",["stdout:revenue 8120\n"]]], [["8,120","c2","line 1"]])
case("cut from the middle", "Head 4,321, tail 5,678, and 987,654 in between.", [["c1",["stdout:"+LONG],200]], [["4,321","c1"],["5,678","c1"],["987,654",None]])
case("read in full", "Head 4,321, tail 5,678, and 987,654 in between.", [["c1",["stdout:"+LONG],6000]], [["4,321","c1"],["5,678","c1"],["987,654","c1"]])
case("html the model never read", "Region A earned 1,320,124 (80.3%).", [["c1",["html:<table class=\"dataframe\"><thead><tr><th></th><th>region</th><th>revenue</th><th>share</th></tr></thead><tbody><tr><th>0</th><td>A</td><td>1320123.6</td><td>80.3</td></tr></tbody></table>"],6000]], [["1,320,124",None],["80.3%",None]])
case("crowd of integers", "There were 500 failed orders.", [["c1",["stdout:" + "".join("%d\n" % i for i in range(1000))]]], [["500",None,"weak"]])
case("crowd with one label each", "Order 512 cost 1,536.", [["c1",["stdout:" + "".join("value: %d\n" % (i * 3) for i in range(1000))]]], [["512",None],["1,536",None,"weak"]])
case("crowd and a named total", "Total revenue was 1.65M.", [["c1",["stdout:" + "".join("day %d: %d.5\n" % (i, 4000 + 37 * i) for i in range(1, 366)) + "Total: 1651593.25\n"]]], [["1.65M","c1","line 366"]])
case("rounded among a column", "One store made 1.65M.", [["c1",["stdout:" + "".join("store %d: %d\n" % (i, 1600000 + 1000 * i) for i in range(100))]]], [["1.65M",None,"weak"]])
case("ru label names the line", "Запад продал 100 единиц.", [["c1",["stdout:Север: 100\nЗапад: 100\n"]]], [["100","c1","line 2"]])
case("ru value under two labels", "Два региона продали по 100 единиц.", [["c1",["stdout:Север: 100\nЗапад: 100\n"]]], [["100","c1","ambiguous"]])

ABC = "       products    revenue  share_pct\nclass                                \nA             7  1320123.6       80.3\nB            12   248504.5       15.1\n\nClass A products:\n                       revenue  share_pct  cum_pct class\nproduct                                                 \nNordia Laptop Pro 14  401456.0       24.4     24.4     A\nKeyra Keyboard TKL     46862.2        2.9     80.3     A\n"
case("row label over a value in the row", "7 of 40 products (class A) make 80.3% of the revenue.", [["c1",["stdout:"+ABC]]], [["7","c1","line 3"],["40",None],["80.3%","c1","line 3"]])
case("one row, two columns, neither named", "The Nordia Laptop Pro 14 leads with 24.4%.", [["c1",["stdout:"+ABC]]], [["14","c1"],["24.4%","c1","ambiguous"]])
case("a word named whole beats one named by its start", "That makes 5,435 purchases.", [["c1",["stdout:Purchases: 5,435, revenue EUR 1,651,593.25\n"]],["c2",["stdout:          events\nvisit      20258\npurchase    5435\n"]]], [["5,435","c1","line 1"]])
case("a word named by its start", "Of 20,258 visits, 55.7% reached the cart.", [["c1",["stdout:          events  from_previous_pct  from_visit_pct\nvisit      20258                NaN           100.0\ncart       11290               55.7            55.7\n"]]], [["20,258","c1"],["55.7%","c1","line 3"]])

case("the label the sentence names whole", "Riga brings the most: 35975.00.", [["c1",["plain:    city  revenue\n0   Riga  35975.0\n1  Tartu  20000.0\n"]],["c2",["stdout:Riga 35975.0\n"]]], [["35975.00","c2","line 1"]])
case("the label named whole in a table", "Riga's revenue is 35975.00.", [["c1",["plain:    city  revenue\n0   Riga  35975.0\n1  Tartu  20000.0\n"]],["c2",["stdout:top 35975.0\n"]]], [["35975.00","c1","line 2"]])

case("a table under a title line", "Riga brings the most: 35975.00.", [["c1",["stdout:3 rows × 2 columns\n      city  revenue\n0     Riga  35975.0\n1    Tartu  20000.0\n"]],["c2",["stdout:Riga 35975.0\n"]]], [["35975.00","c2","line 1"]])

json.dump({"cases": C}, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus.json'), 'w'),
          ensure_ascii=False, indent=1)
print(len(C))
