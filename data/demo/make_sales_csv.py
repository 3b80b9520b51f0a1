#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the reference case's quarterly sales CSV: about 45,000 rows, 5 columns.

Usage: make_sales_csv.py OUT.csv [q4]

With q4, the next quarter (October to December 2026) of the same shop, with the same columns
and the same mess: the data a session is run again on.

Standard library only, and deterministic: the same file, byte for byte, on every run.

The columns are one row per funnel event of an online shop in Q3 2026 (July to
September):

  date         event time, "YYYY-MM-DD HH:MM:SS"
  customer_id  "CUST-" and six digits
  product      product name (about 40 products, a few bestsellers: ABC analysis)
  stage        visit, cart, checkout or purchase (each journey stops at some stage:
               a conversion funnel)
  amount       order value in EUR, only on purchase rows

and the mess an export has, to be cleaned:

  - about 1.5% exact duplicate rows (the same event exported twice);
  - empty cells: date, customer_id, product and stage each empty on a fraction of a
    percent of the rows, and about 1.5% of the purchases without an amount;
  - stray spaces around about 3% of the amounts (" 129.90", "59.00 "), a space as
    thousands separator in about a quarter of the amounts of 1,000 or more ("1 299.00"),
    so the amount column does not parse as numbers as it is, and a trailing space after
    a few product names.
"""
import csv
import datetime
import random
import sys

SEED = 20260930
TARGET_ROWS = 45_000

# (name, unit price in EUR, popularity weight). Weights fall off steeply so that a few
# products make most of the revenue.
PRODUCTS = [
    ("Nordia Laptop Pro 14 (16GB/512GB)", 1299.00, 30),
    ("Vexa Smartphone X12 128GB", 899.00, 42),
    ("Aurel Noise-Cancelling Headphones", 249.00, 60),
    ("Pixon 4K Monitor 27in", 379.00, 34),
    ("Vexa Tablet Air 11 64GB", 549.00, 26),
    ("Vexa Smartwatch S3", 229.00, 30),
    ("Keyra Mechanical Keyboard TKL", 119.00, 38),
    ("Keyra Wireless Mouse M2", 39.90, 55),
    ("Portix USB-C Dock 9-in-1", 159.00, 22),
    ("Stora Portable SSD 1TB", 109.00, 24),
    ("Pixon Webcam HD Pro 1080p", 89.00, 20),
    ("Aurel Bluetooth Speaker Mini", 79.00, 22),
    ("Aurel Gaming Headset 7.1", 99.00, 16),
    ("Sitwell Ergonomic Office Chair", 329.00, 7),
    ("Sitwell Electric Standing Desk", 489.00, 5),
    ("Netra Wi-Fi 6 Router AX3000", 139.00, 12),
    ("Lumen E-Reader Paper 6in", 149.00, 10),
    ("Pixon Action Camera 4K", 299.00, 6),
    ("Portix Power Bank 20000mAh", 45.00, 20),
    ("Portix USB-C Charger 65W", 39.00, 22),
    ("Portix HDMI 2.1 Cable 2m", 12.90, 26),
    ("Nordia Laptop Sleeve 14in", 24.90, 16),
    ("Vexa Tempered Glass Screen Protector", 9.90, 22),
    ("Vexa Silicone Phone Case", 19.90, 24),
    ("Aurel Wireless Earbuds Pro", 129.00, 16),
    ("Aurel USB Condenser Microphone", 119.00, 5),
    ("Pixon Drawing Tablet M", 199.00, 3),
    ("Netra Smart Plug Wi-Fi", 19.90, 9),
    ("Lumen LED Desk Lamp", 49.00, 7),
    ("Portix Surge Protector 6-Outlet", 29.90, 6),
    ("Stora microSD Card 128GB", 24.90, 9),
    ("Inko Printer Ink Set CMYK", 59.00, 6),
    ("Inko Label Printer LP-50", 89.00, 2),
    ("Inko Document Scanner DS-20", 249.00, 1.5),
    ("Pixon VR Headset One", 449.00, 1.5),
    ("Pixon Replacement Stylus Pen", 39.00, 2),
    ("Portix Cable Organizer Kit", 14.90, 3),
    ("Keyra Mouse Pad XL", 19.90, 4),
    ("Pixon Webcam Cover 3-Pack", 5.90, 3),
    ("Sitwell Monitor Arm Single", 99.00, 2),
]

# Probability of going on to the next stage: visit -> cart -> checkout -> purchase.
STAGES = ["visit", "cart", "checkout", "purchase"]
GO_ON = [0.55, 0.65, 0.75]

START = datetime.date(2026, 7, 1)
DAYS = 92  # 1 July .. 30 September 2026
MONTH_TRAFFIC = {7: 1.00, 8: 1.12, 9: 1.28}     # a growing quarter
# The next quarter: October to December, busier towards Christmas.
Q4_START = datetime.date(2026, 10, 1)
Q4_MONTH_TRAFFIC = {10: 1.20, 11: 1.35, 12: 1.60}
Q4_SEED = 20261231
WEEKDAY_TRAFFIC = [1.00, 0.97, 0.98, 1.02, 1.10, 1.25, 1.15]  # Mon .. Sun
N_CUSTOMERS = 7_500


def journey_count(rows_wanted):
    rows_per_journey = 1.0
    p = 1.0
    for q in GO_ON:
        p *= q
        rows_per_journey += p
    return round(rows_wanted / 1.015 / rows_per_journey)


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "q4"):
        sys.stderr.write("usage: make_sales_csv.py OUT.csv [q4]\n")
        return 2
    q4 = len(argv) == 3
    rng = random.Random(Q4_SEED if q4 else SEED)
    start, traffic = (Q4_START, Q4_MONTH_TRAFFIC) if q4 else (START, MONTH_TRAFFIC)

    days = [start + datetime.timedelta(days=i) for i in range(DAYS)]
    day_weights = [traffic[d.month] * WEEKDAY_TRAFFIC[d.weekday()] for d in days]
    names = [p[0] for p in PRODUCTS]
    prices = {p[0]: p[1] for p in PRODUCTS}
    weights = [p[2] for p in PRODUCTS]
    hours = list(range(7, 23))
    hour_weights = [1, 2, 3, 4, 5, 5, 6, 6, 5, 5, 6, 7, 8, 8, 7, 4]

    events = []  # (datetime, customer, product, stage, amount)
    for _ in range(journey_count(TARGET_ROWS)):
        day = rng.choices(days, day_weights)[0]
        hour = rng.choices(hours, hour_weights)[0]
        t = datetime.datetime(day.year, day.month, day.day, hour,
                              rng.randrange(60), rng.randrange(60))
        customer = "CUST-%06d" % (100001 + rng.randrange(N_CUSTOMERS))
        product = rng.choices(names, weights)[0]
        events.append((t, customer, product, "visit", ""))
        for stage, q in zip(STAGES[1:], GO_ON):
            if rng.random() >= q:
                break
            t += datetime.timedelta(seconds=rng.randrange(20, 400))
            amount = ""
            if stage == "purchase":
                qty = rng.choices([1, 2, 3, 4], [78, 15, 5, 2])[0]
                discount = rng.choices([0.0, 0.05, 0.10, 0.15], [70, 15, 10, 5])[0]
                amount = "%.2f" % (prices[product] * qty * (1 - discount))
            events.append((t, customer, product, stage, amount))
    events.sort(key=lambda e: e[0])

    rows = []
    for t, customer, product, stage, amount in events:
        row = [t.strftime("%Y-%m-%d %H:%M:%S"), customer, product, stage, amount]
        r = rng.random()
        if r < 0.003:
            row[0] = ""
        elif r < 0.010:
            row[1] = ""
        elif r < 0.016:
            row[2] = ""
        elif r < 0.020:
            row[3] = ""
        if row[2] and rng.random() < 0.004:
            row[2] = row[2] + " "
        if amount:
            r = rng.random()
            if r < 0.015:
                row[4] = ""
            elif r < 0.030:
                row[4] = " " + amount
            elif r < 0.045:
                row[4] = amount + " "
            elif len(amount) > 6 and r < 0.30:
                # A thousands separator from a spreadsheet: "1 299.00".
                row[4] = amount[:-6] + " " + amount[-6:]
        rows.append(row)

    # The same event exported twice, usually close to the original.
    n_dup = round(len(rows) * 0.015)
    for _ in range(n_dup):
        i = rng.randrange(len(rows))
        j = min(len(rows), i + 1 + rng.randrange(50))
        rows.insert(j, list(rows[i]))

    with open(argv[1], "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["date", "customer_id", "product", "stage", "amount"])
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
