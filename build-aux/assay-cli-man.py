#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# assay-cli(1), written from the built assay-cli's own help (its usage and each command's
# --help), so the page says what the program says:
#   assay-cli-man.py ASSAY_CLI VERSION OUTPUT
import os
import re
import subprocess
import sys

cli, version, output = sys.argv[1:4]
env = dict(os.environ, LANGUAGE='C', LC_ALL='C.UTF-8', LANG='C.UTF-8')


def helptext(*args):
    done = subprocess.run([cli, *args], capture_output=True, text=True, env=env, timeout=60)
    return (done.stdout or done.stderr).rstrip('\n')


def roff(text):
    """TEXT as roff: backslashes escaped, a line never starting with a control character."""
    lines = []
    text = text.replace('\\', '\\e')
    text = ''.join(c if ord(c) < 128 else '\\[u%04X]' % ord(c) for c in text)
    for line in text.split('\n'):
        if line.startswith(('.', "'")):
            line = '\\&' + line
        lines.append(line)
    return '\n'.join(lines)


usage = helptext('--help')
# "  ask [OPTIONS] QUESTION      ask the model; ..." → the command names, in the usage's order.
commands = []
for line in usage.split('\n'):
    m = re.match(r'^  ([a-z]+) ', line)
    if m and m.group(1) not in commands:
        commands.append(m.group(1))
if not commands:
    sys.exit(f'{cli} --help lists no command:\n{usage}')

page = [
    f'.TH ASSAY-CLI 1 "" "Assay {version}" "User Commands"',
    '.SH NAME',
    'assay\\-cli \\- ask questions about data files and databases; a model writes the code, a sandbox runs it',
    '.SH SYNOPSIS',
    '.B assay\\-cli',
    '.I COMMAND',
    '.RI [ OPTIONS ]',
    '.SH DESCRIPTION',
    'The command line of Assay. A language model (OpenAI, Anthropic or any OpenAI\\-compatible',
    'server) writes Python or read\\-only SQL; each cell is shown for approval and runs in a',
    'locked\\-down sandbox (Docker, bubblewrap or E2B) with no network. Sessions are saved',
    'under ~/.local/share/assay/sessions and are shared with the Assay window.',
    '.PP',
    '.nf',
    roff(usage),
    '.fi',
    '.SH COMMANDS',
]
for command in commands:
    text = helptext(command, '--help')
    if 'unknown command' in text or not text.strip():
        continue   # a command with subcommands only (sandbox): the usage above says them
    page += ['.SS ' + command, '.nf', roff(text), '.fi']
page += [
    '.SH ENVIRONMENT',
    '.TP',
    '.B OPENAI_API_KEY, ANTHROPIC_API_KEY, ASSAY_API_KEY',
    'The model server\'s key (never written to a session, a log or a report).',
    '.TP',
    '.B E2B_API_KEY',
    'The key of the E2B backend (\\-\\-backend e2b).',
    '.TP',
    '.B PGPASSWORD, MYSQL_PWD',
    'Database passwords, as the database clients read them (also ~/.pgpass and ~/.my.cnf).',
    '.SH FILES',
    '.TP',
    '.I ~/.local/share/assay/sessions/',
    'Saved sessions: session.json, the datasets\' copies, the cells\' outputs and artifacts.',
    '.SH SEE ALSO',
    '.BR assay (1)\\ is\\ the\\ window;\\ docs/\\ in\\ the\\ source\\ tree\\ has\\ the\\ user\\ guide.',
]
with open(output, 'w', encoding='utf-8') as f:
    f.write('\n'.join(page) + '\n')
