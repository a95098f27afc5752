#!/usr/bin/env python3
"""Packaging checks (standard library only): what deploy/ ships.

    python3 tests/deploy/test_deploy.py CHECK   CHECK: unit, man, container, k8s, grafana, install

meson (tests/deploy/meson.build) runs each check as its own test with this
environment: TAPISD, TAPIS, TAPIS_BOT (the built executables), SOURCE_ROOT,
BUILD_ROOT, PREFIX, BINDIR, MANDIR, DATADIR, UNITDIR (where meson installs the
systemd unit). Exit status 0 = pass, 1 = fail. A check fails, never skips,
when a tool it runs is missing (systemd-analyze, groff, man): deploy/dev
installs them, and a weaker check in their place would pass what they fail.
Length: over 800 lines on purpose: the checks share the environment above
and one set of helpers (a server, a unit's keys, a rendered page), and
meson runs each as its own test.

- unit: the generated tapisd.service has the keys docs/OPERATING.md and
  DESIGN promise (sandbox, state directory, descriptor limit for
  --max-conns, ExecStart at the installed tapisd); `systemd-analyze verify`
  accepts it, so the commands it runs (ExecReload's /bin/kill, from procps)
  and its man: link exist.
- man: each page renders without a warning (groff -ww; `man -l` too) and
  names every option its program's --help prints, with the same defaults:
  a new flag without a man entry fails here.
- container: the Containerfile's stages, USER, HEALTHCHECK, EXPOSE, VOLUME,
  ENTRYPOINT and CMD (--metrics 0.0.0.0:9233); every folder the build reads
  is copied; the HEALTHCHECK's command itself is run against a real tapisd;
  compose.yaml (tapisd's --metrics, bind mounts) and prometheus.yml (its
  tapisd target on that port, every 15 s); the cluster of compose.yaml (a
  redis service and three tapisd nodes joined through it, distinct node ids,
  ports and volumes, in a profile, scraped by Prometheus).
- k8s: kinds, probes (the exec probe run against a real tapisd), resources,
  the volume claim, the services' selectors and ports; the metrics port, the
  --metrics arg, the prometheus.io/* pod annotations, no metrics port on the
  LoadBalancer; three replicas joined through the Redis of redis.yaml, each
  advertising its pod's name in the headless Service.
- container and k8s: every option they pass tapisd is one `tapisd --help`
  lists (--redis, --advertise, --node-id: issue 15's server side).
- grafana: deploy/grafana/tapis-dashboard.json parses, every panel and query
  has a Prometheus data source (input or `datasource` variable), every
  expression names only the families of docs/METRICS.md (METRIC_FAMILIES
  below) limited to $instance, the quantiles are histogram_quantile over
  rate(X_bucket[5m]) by le; the Grafana provisioning files match compose.yaml.
- install: `meson install --destdir` puts the executables, the man pages,
  the unit and PROTOCOL.md under the prefix (so `--prefix=$HOME/x` needs no
  root), and the unit's ExecStart names the installed tapisd.

Length: over 800 lines on purpose: one check a section, each beside the
helpers only it uses, in the one file meson runs with a CHECK name.
"""
import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ENV = os.environ
SRC = ENV.get('SOURCE_ROOT') or os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = ENV.get('BUILD_ROOT', os.path.join(SRC, 'build'))
PROGRAMS = {  # program -> (executable, man page in deploy/man/)
    'tapisd': (ENV.get('TAPISD', os.path.join(BUILD, 'server', 'tapisd')), 'tapisd.8'),
    'tapis': (ENV.get('TAPIS', os.path.join(BUILD, 'clients', 'tapis')), 'tapis.1'),
    'tapis-bot': (ENV.get('TAPIS_BOT', os.path.join(BUILD, 'clients', 'tapis-bot')), 'tapis-bot.1'),
}
FAILURES = []

# tapisd is started and stopped by the server tests' launcher.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'server'))
from harness import Server, free_port  # noqa: E402


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print('FAIL:', what)
    return cond


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, **kw)


def need(tool, package):
    """The path of TOOL, or the check fails: a check that needs a tool runs
    it, never a weaker check in its place (deploy/dev installs PACKAGE)."""
    path = shutil.which(tool)
    if not path:
        raise SystemExit('FAIL: %s not found: apt-get install %s (deploy/dev installs it)'
                         % (tool, package))
    return path


def help_text(prog):
    r = run([PROGRAMS[prog][0], '--help'])
    if r.returncode != 0:
        raise SystemExit('%s --help exited %d' % (prog, r.returncode))
    return r.stdout


def squash(text):
    return ' '.join(text.split())


# --------------------------------------------------------------------------
# A tiny YAML reader: block mappings and sequences, plain and quoted scalars,
# [] and {}, comments, several documents, an anchor on a mapping's value
# (`key: &name`), its alias (`*name`) and the merge key (`<<: *name`). Enough
# for deploy/k8s/ and compose.yaml (PyYAML is not assumed); anything else is
# an error.
# --------------------------------------------------------------------------

KEY_RE = re.compile(r'^([^\s\'"#\-][^:]*|"[^"]*"|\'[^\']*\'):(\s+|$)(.*)$')


def strip_comment(line):
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in '\'"' and (i == 0 or line[i - 1] in ' \t-[{,:'):
            quote = ch
        elif ch == '#' and (i == 0 or line[i - 1] in ' \t'):
            return line[:i].rstrip()
    return line.rstrip()


ANCHORS = {}  # the current document's, by name


def scalar(text):
    text = text.strip()
    if text.startswith('*'):
        if text[1:] not in ANCHORS:
            raise ValueError('unknown alias: ' + text)
        return ANCHORS[text[1:]]
    if text.startswith('&'):
        raise ValueError('anchor not on a mapping value: ' + text)
    if text.startswith("'"):
        if not text.endswith("'") or len(text) < 2:
            raise ValueError('unterminated string: ' + text)
        return text[1:-1].replace("''", "'")
    if text.startswith('"'):
        return json.loads(text)
    if text == '[]':
        return []
    if text == '{}':
        return {}
    if text.startswith('[') and text.endswith(']'):
        return [scalar(x) for x in text[1:-1].split(',') if x.strip()]
    if text in ('true', 'True'):
        return True
    if text in ('false', 'False'):
        return False
    if text in ('null', '~', ''):
        return None
    if re.fullmatch(r'-?[0-9]+', text):
        return int(text)
    return text


def yaml_documents(text):
    docs, cur = [], []
    for raw in text.split('\n'):
        if raw.rstrip() == '---':
            docs.append(cur)
            cur = []
            continue
        if '\t' in raw[:len(raw) - len(raw.lstrip())]:
            raise ValueError('tab in indentation: ' + raw)
        line = strip_comment(raw)
        if line.strip():
            cur.append([len(line) - len(line.lstrip()), line.strip()])
    docs.append(cur)
    out = []
    for lines in docs:
        if lines:
            ANCHORS.clear()
            out.append(parse_block(lines, 0, lines[0][0])[0])
    return out


def parse_block(lines, i, indent):
    if lines[i][1] == '-' or lines[i][1].startswith('- '):
        out = []
        while i < len(lines) and lines[i][0] == indent and (
                lines[i][1] == '-' or lines[i][1].startswith('- ')):
            rest = lines[i][1][1:]
            if not rest.strip():
                value, i = parse_block(lines, i + 1, lines[i + 1][0])
            elif KEY_RE.match(rest.lstrip()):
                col = indent + 1 + len(rest) - len(rest.lstrip())
                lines[i] = [col, rest.lstrip()]
                value, i = parse_block(lines, i, col)
            else:
                value, i = scalar(rest), i + 1
            out.append(value)
        return out, i
    m = KEY_RE.match(lines[i][1])
    if not m:
        if i + 1 < len(lines) and lines[i + 1][0] > indent:
            raise ValueError('unsupported YAML (multi-line scalar?): ' + lines[i][1])
        return scalar(lines[i][1]), i + 1
    out, merged = {}, set()
    while i < len(lines) and lines[i][0] == indent:
        m = KEY_RE.match(lines[i][1])
        if not m:
            raise ValueError('expected "key:" at line %r' % lines[i][1])
        key = scalar(m.group(1))
        if key in out and key not in merged:
            raise ValueError('duplicate key %r' % key)
        anchor, _, rest = m.group(3).partition(' ') if m.group(3).startswith('&') else (
            None, None, m.group(3))
        if rest:
            value, i = scalar(rest), i + 1
        elif i + 1 < len(lines) and (lines[i + 1][0] > indent or (
                lines[i + 1][0] == indent and lines[i + 1][1].startswith('- '))):
            value, i = parse_block(lines, i + 1, lines[i + 1][0])
        else:
            value, i = None, i + 1
        if anchor:
            ANCHORS[anchor[1:]] = value
        if key == '<<':  # its keys, under those the mapping gives itself
            if not isinstance(value, dict):
                raise ValueError('<< wants a mapping, got %r' % value)
            for k, v in value.items():
                if k not in out:
                    out[k] = v
                    merged.add(k)
            continue
        merged.discard(key)
        out[key] = value
    if i < len(lines) and lines[i][0] > indent:
        raise ValueError('bad indentation at %r' % lines[i][1])
    return out, i


def dig(obj, *path):
    for p in path:
        if isinstance(obj, dict) and p in obj:
            obj = obj[p]
        elif isinstance(obj, list) and isinstance(p, int) and p < len(obj):
            obj = obj[p]
        else:
            return None
    return obj


# --------------------------------------------------------------------------
# A real tapisd for the health checks.
# --------------------------------------------------------------------------

@contextlib.contextmanager
def live_tapisd():
    """tapisd on a free port (the server tests' launcher), in a directory of
    its own: whatever it keeps in its working directory is thrown away."""
    with tempfile.TemporaryDirectory() as d:
        with Server(PROGRAMS['tapisd'][0], cwd=d, default_db=True) as srv:
            yield srv


def health_command_works(cmd, what):
    """Run a shell health check (port 7233 replaced) with the built tapis on
    PATH: 0 against a live tapisd, non-zero against a closed port."""
    env = dict(ENV)
    env['PATH'] = os.path.dirname(PROGRAMS['tapis'][0]) + os.pathsep + env.get('PATH', '')
    with live_tapisd() as srv:
        r = run(['sh', '-c', cmd.replace('7233', str(srv.port))], env=env)
        check(r.returncode == 0, '%s: fails against a live server (%d, %s)'
              % (what, r.returncode, r.stderr.strip()))
    r = run(['sh', '-c', cmd.replace('7233', str(free_port()))], env=env)
    check(r.returncode != 0, '%s: passes with no server' % what)


# --------------------------------------------------------------------------
# unit
# --------------------------------------------------------------------------

def parse_unit(text):
    sections, cur = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in '#;':
            continue
        if line.startswith('['):
            cur = sections.setdefault(line.strip('[]'), [])
            continue
        key, _, value = line.partition('=')
        cur.append((key.strip(), value.strip()))
    return sections


def default_of(help_txt, option):
    m = re.search(re.escape(option) + r'\s.*?\(default ([^;)]+)', squash(help_txt))
    return m.group(1) if m else None


def check_unit():
    path = os.path.join(BUILD, 'deploy', 'tapisd.service')
    text = read(path)
    check(not re.search(r'@[a-z_]+@', text), 'unit: unsubstituted @var@')
    unit = parse_unit(text)
    svc = dict(unit.get('Service', []))
    allv = lambda sec, key: [v for k, v in unit.get(sec, []) if k == key]
    check(dict(unit.get('Unit', [])).get('Description'), 'unit: no Description=')
    check(svc.get('Type') == 'notify' and svc.get('NotifyAccess') == 'main',
          'unit: Type=notify and NotifyAccess=main wanted, got %r' % svc.get('Type'))
    want = {'DynamicUser': 'yes', 'StateDirectory': 'tapis', 'WorkingDirectory': '/var/lib/tapis',
            'ProtectSystem': 'strict', 'ProtectHome': 'yes', 'PrivateTmp': 'yes',
            'NoNewPrivileges': 'yes', 'Restart': 'on-failure', 'CapabilityBoundingSet': ''}
    for k, v in want.items():
        check(svc.get(k) == v, 'unit: %s=%s wanted, got %r' % (k, v, svc.get(k)))
    families = svc.get('RestrictAddressFamilies', '').split()
    check('AF_INET' in families and 'AF_INET6' in families,
          'unit: RestrictAddressFamilies= must keep AF_INET and AF_INET6')
    check('@system-service' in allv('Service', 'SystemCallFilter'),
          'unit: SystemCallFilter=@system-service missing')
    max_conns = int(default_of(help_text('tapisd'), '--max-conns'))
    nofile = svc.get('LimitNOFILE', '0')
    check(nofile.isdigit() and int(nofile) >= max_conns + 64,
          'unit: LimitNOFILE=%s is below --max-conns %d + 64' % (nofile, max_conns))
    exe = os.path.join(ENV.get('PREFIX', '/usr/local'), ENV.get('BINDIR', 'bin'), 'tapisd')
    start = svc.get('ExecStart', '')
    check(start.split()[:1] == [exe], 'unit: ExecStart= should run %s, is %r' % (exe, start))
    check(svc.get('ExecReload', '').endswith('-HUP $MAINPID'),
          'unit: ExecReload= should send SIGHUP, is %r' % svc.get('ExecReload'))
    check('multi-user.target' in allv('Install', 'WantedBy'), 'unit: not WantedBy=multi-user.target')

    tool = need('systemd-analyze', 'systemd')
    with tempfile.TemporaryDirectory() as tmp:
        # The built tapisd stands for the installed one; the page for man:tapisd(8).
        copy = os.path.join(tmp, 'tapisd.service')
        with open(copy, 'w') as f:
            f.write(text.replace(exe, os.path.abspath(PROGRAMS['tapisd'][0])))
        os.makedirs(os.path.join(tmp, 'man', 'man8'))
        shutil.copy(os.path.join(SRC, 'deploy', 'man', 'tapisd.8'), os.path.join(tmp, 'man', 'man8'))
        env = dict(ENV, MANPATH=os.path.join(tmp, 'man'), SYSTEMD_LOG_COLOR='0')
        r = run([tool, 'verify', copy], env=env)
        ours = [l for l in (r.stdout + r.stderr).splitlines() if 'tapisd' in l]
        check(r.returncode == 0 and not ours,
              'unit: systemd-analyze verify: exit %d\n%s' % (r.returncode, r.stdout + r.stderr))
    return 0


# --------------------------------------------------------------------------
# man
# --------------------------------------------------------------------------

def options_in(help_txt):
    return sorted(set(re.findall(r'(?<![\w-])--[a-z][a-z0-9-]*', help_txt)))


def defaults_in(help_txt):
    """(option, 'default X') for each option line of --help whose text (with
    its continuation lines, indented deeper) gives a default."""
    out, lines = [], help_txt.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r'^(\s*)(--[a-z][a-z0-9-]*)', line)
        if not m:
            continue
        text = line[m.end():]
        for nxt in lines[i + 1:]:
            ind = len(nxt) - len(nxt.lstrip())
            if not nxt.strip() or ind <= len(m.group(1)) or nxt.lstrip().startswith('--'):
                break
            text += ' ' + nxt
        d = re.search(r'\((default:? [^;)]+)', squash(text))
        if d:
            out.append((m.group(2), d.group(1).strip()))
    return out


def man_entry(rendered, opt):
    """The text of OPT's entry in a rendered page (its .TP tag at indent 7,
    the body indented deeper), or None."""
    lines = rendered.splitlines()
    for i, line in enumerate(lines):
        if re.match(r'^ {3,8}' + re.escape(opt) + r'(?![\w-])', line):
            body = [line]
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) < 10:
                    break
                body.append(nxt)
            return squash(' '.join(body))
    return None


def render(page, *extra):
    return run(['groff', '-man', '-Tascii', '-ww', '-rLL=250n', '-rHY=0', '-P-cbou'] + list(extra)
               + [page], env=dict(ENV, LC_ALL='C'))


def check_man():
    need('groff', 'groff-base')
    man = need('man', 'man-db')
    for prog, (exe, page_name) in PROGRAMS.items():
        page = os.path.join(SRC, 'deploy', 'man', page_name)
        src = read(page)
        section = page_name.rsplit('.', 1)[1]
        check(re.search(r'^\.TH %s %s ' % (re.escape(prog.upper()), section), src, re.M),
              '%s: .TH must name %s %s' % (page_name, prog.upper(), section))
        r = run(['groff', '-man', '-ww', '-z', page])
        check(r.returncode == 0 and not r.stderr.strip(),
              '%s: groff warns: %s' % (page_name, r.stderr.strip()))
        r = render(page)
        check(r.returncode == 0 and not r.stderr.strip(),
              '%s: render: %s' % (page_name, r.stderr.strip()))
        rendered, text = r.stdout, squash(r.stdout)
        r = run([man, '--warnings', '-l', page], env=dict(ENV, MANWIDTH='80', MANPAGER='cat',
                                                          PAGER='cat', LC_ALL='C.UTF-8'))
        check(r.returncode == 0 and not r.stderr.strip(),
              '%s: man -l: exit %d %s' % (page_name, r.returncode, r.stderr.strip()))
        htxt = help_text(prog)
        for opt in options_in(htxt):
            check(opt in text, '%s: option %s of `%s --help` is not in the page'
                  % (page_name, opt, prog))
        for opt, default in defaults_in(htxt):
            entry = man_entry(rendered, opt)
            check(entry and default in entry, '%s: %s: "%s" (from --help) is not in its entry'
                  % (page_name, opt, default))
        for sec in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'EXIT STATUS', 'EXAMPLES',
                    'SEE ALSO'):
            check(re.search(r'^\.SH "?%s"?$' % sec, src, re.M), '%s: no %s section' % (page_name, sec))
        check('PROTOCOL.md' in text, '%s: no pointer to PROTOCOL.md' % page_name)
    text = squash(render(os.path.join(SRC, 'deploy', 'man', 'tapisd.8')).stdout)
    for word in ('SIGTERM', 'SIGINT', 'FILES', 'SIGNALS'):
        check(word in text, 'tapisd.8: %s not mentioned' % word)
    return 0


# --------------------------------------------------------------------------
# metrics: what tapisd --metrics exports, as deploy/ uses it
# --------------------------------------------------------------------------

# The families of docs/METRICS.md (name -> Prometheus type), read from its
# table: the only names a dashboard expression may use (histograms with
# _bucket, _sum or _count), with Prometheus' own `up`. tests/server/test_ops.py
# holds tapisd's scrape to the same table.
def documented_families():
    text = read(os.path.join(SRC, 'docs', 'METRICS.md'))
    return dict(re.findall(r'^\| `([a-z_]+)` \| (gauge|counter|histogram) \|', text, re.M))


METRIC_FAMILIES = documented_families()
PROMETHEUS_SERIES = {'up'}  # Prometheus' own, per target
METRICS_PORT = 9233         # --metrics 0.0.0.0:9233 in containers and Kubernetes
METRICS_PATH = '/metrics'

PROMQL_KEYWORDS = {'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or',
                   'unless', 'offset', 'bool', 'inf', 'nan', 'atan2'}


def metric_family(name):
    """The family NAME belongs to (histogram series by their suffix), or None."""
    if name in METRIC_FAMILIES or name in PROMETHEUS_SERIES:
        return name
    for suffix in ('_bucket', '_sum', '_count'):
        base = name[:-len(suffix)]
        if name.endswith(suffix) and METRIC_FAMILIES.get(base) == 'histogram':
            return base
    return None


def promql_selectors(expr):
    """(metric name, label matchers text) of each vector selector of a PromQL
    expression; name None for a selector without one ({__name__=...})."""
    strings = []

    def keep(m):
        strings.append(m.group(0))
        return '"%d"' % (len(strings) - 1)
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', keep, expr)
    e = re.sub(r'\[[^\]]*\]', ' ', e)                                   # ranges, subqueries
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', ' ', e)
    e = re.sub(r'\boffset\s+\S+', ' ', e)
    e = re.sub(r'\$\{?\w+\}?', ' ', e)                                  # Grafana variables
    out = []
    for m in re.finditer(r'([A-Za-z_:][\w:]*)?\s*(\{[^}]*\})?', e):
        name, labels = m.group(1), m.group(2)
        if not name and not labels:
            continue
        if name and (m.start() > 0 and (e[m.start() - 1].isalnum() or e[m.start() - 1] in '._')):
            continue                                                    # 1e3, 0.5
        rest = e[m.end():].lstrip()
        if name and not labels and (rest.startswith('(') or name.lower() in PROMQL_KEYWORDS):
            continue                                                    # function, aggregation
        labels = re.sub(r'"(\d+)"', lambda s: strings[int(s.group(1))], labels or '')
        out.append((name, labels))
    return out


def flag_values(argv, flag):
    """The values of FLAG (FLAG VALUE or FLAG=VALUE) in an argument list."""
    out = []
    for i, a in enumerate(argv):
        if a == flag:
            out.append(argv[i + 1] if i + 1 < len(argv) else '')
        elif a.startswith(flag + '='):
            out.append(a.split('=', 1)[1])
    return out


def metrics_addresses(argv):
    """The values of --metrics in an argument list."""
    return flag_values(argv, '--metrics')


def check_metrics_arg(argv, what):
    """ARGV runs tapisd with --metrics 0.0.0.0:9233, once (all interfaces: a
    container's loopback is its own)."""
    addrs = metrics_addresses([str(a) for a in argv])
    check(addrs == ['0.0.0.0:%d' % METRICS_PORT],
          '%s: tapisd runs with --metrics %s, wanted "--metrics 0.0.0.0:%d" once (argv %s)'
          % (what, addrs or 'missing', METRICS_PORT, argv))


# The cluster's options (issue 15), which deploy/ passes tapisd: `tapisd
# --help` lists them once the server side is in.
CLUSTER_FLAGS = ('--redis', '--advertise', '--node-id', '--node-ttl')
NODE_ID_RE = re.compile(r'[A-Za-z0-9._-]{1,32}')


def check_tapisd_options(argv, what):
    """Every --option of a tapisd ARGV is one that `tapisd --help` lists."""
    known = options_in(help_text('tapisd'))
    for a in argv:
        opt = str(a).split('=', 1)[0]
        if re.fullmatch(r'--[a-z][a-z0-9-]*', opt):
            check(opt in known, '%s: tapisd %s is not in `tapisd --help`%s' % (
                what, opt, ' (a cluster option: is the server side of issue 15 in?)'
                if opt in CLUSTER_FLAGS else ''))


def host_port(addr):
    """(HOST, PORT) of 'HOST:PORT' (or '[V6]:PORT'), or (None, None)."""
    m = re.fullmatch(r'\[?([^\[\]]*?)\]?:(\d+)', str(addr))
    return (m.group(1), int(m.group(2))) if m else (None, None)


def as_argv(value):
    """compose's command/entrypoint: a list, a string (split like a shell), or None."""
    if value is None:
        return None
    if isinstance(value, list):
        return [str(v) for v in value]
    return shlex.split(str(value))


# --------------------------------------------------------------------------
# container
# --------------------------------------------------------------------------

def containerfile_instructions(text):
    out, cur = [], ''
    for line in text.splitlines():
        if not cur and (not line.strip() or line.lstrip().startswith('#')):
            continue
        if cur and line.lstrip().startswith('#'):
            continue
        cur += line.rstrip()
        if cur.endswith('\\'):
            cur = cur[:-1] + ' '
            continue
        word, _, rest = cur.strip().partition(' ')
        out.append((word.upper(), rest.strip()))
        cur = ''
    return out


def check_container():
    base = os.path.join(SRC, 'deploy', 'container')
    ins = containerfile_instructions(read(os.path.join(base, 'Containerfile')))
    stages, cur = [], None
    for word, rest in ins:
        if word == 'FROM':
            cur = {'from': rest, 'ins': []}
            stages.append(cur)
        elif cur is None:
            check(word == 'ARG', 'Containerfile: %s before FROM' % word)
        else:
            cur['ins'].append((word, rest))
    if not check(len(stages) >= 2, 'Containerfile: not multi-stage'):
        return 0
    build, final = stages[0], stages[-1]
    check(re.fullmatch(r'debian:bookworm AS build', build['from'], re.I),
          'Containerfile: first stage should be "debian:bookworm AS build", is %r' % build['from'])
    check(re.fullmatch(r'debian:bookworm(-slim)?', final['from']),
          'Containerfile: run stage should be debian:bookworm(-slim), is %r' % final['from'])
    get = lambda st, w: [r for x, r in st['ins'] if x == w]
    # The build stage copies every folder the build reads.
    copied = set()
    for c in get(build, 'COPY'):
        srcs = [p for p in c.split() if not p.startswith('--')][:-1]
        for p in srcs:
            check(os.path.exists(os.path.join(SRC, p)), 'Containerfile: COPY %s: no such path' % p)
            copied.add(p.rstrip('/'))
    for d in re.findall(r"^\s*subdir\('([^']+)'\)", read(os.path.join(SRC, 'meson.build')), re.M):
        if d != 'tests':
            check(d in copied, 'Containerfile: the build reads %s/ but it is not copied' % d)
    for f in ('meson.build', 'meson_options.txt', 'include'):
        check(f in copied, 'Containerfile: %s not copied' % f)
    runs = ' '.join(get(build, 'RUN'))
    check('-Dtests=false' in runs and 'meson install' in runs and 'ninja' in runs,
          'Containerfile: the build stage should configure without tests, build and install')
    # The run stage: runtime libraries only, the executables from the build stage.
    pkgs = set()
    for r in get(final, 'RUN'):
        m = re.search(r'apt-get install ([^&|;]*)', r)
        if m:
            pkgs |= {p for p in m.group(1).split() if not p.startswith('-')}
    check({'libuv1', 'libjansson4', 'libedit2'} <= pkgs,
          'Containerfile: run stage should install libuv1 libjansson4 libedit2, has %s' % sorted(pkgs))
    check(not [p for p in pkgs if p.endswith('-dev') or p in ('gcc', 'meson', 'ninja-build')],
          'Containerfile: build tools in the run stage: %s' % sorted(pkgs))
    check(any('--from=build' in c for c in get(final, 'COPY')), 'Containerfile: no COPY --from=build')
    users = get(final, 'USER')
    check(users and users[-1].split(':')[0] not in ('root', '0'), 'Containerfile: runs as root')
    check(users and users[-1].split(':')[0].isdigit(),
          'Containerfile: USER should be numeric (Kubernetes runAsNonRoot checks it)')
    check('/var/lib/tapis' in get(final, 'WORKDIR'), 'Containerfile: WORKDIR /var/lib/tapis missing')
    vols = ' '.join(get(final, 'VOLUME'))
    check('/var/lib/tapis' in vols, 'Containerfile: VOLUME /var/lib/tapis missing')
    check(any(re.fullmatch(r'7233(/tcp)?', p) for e in get(final, 'EXPOSE') for p in e.split()),
          'Containerfile: EXPOSE 7233 missing')
    check(any(re.fullmatch(r'%d(/tcp)?' % METRICS_PORT, p) for e in get(final, 'EXPOSE')
              for p in e.split()), 'Containerfile: EXPOSE %d (metrics) missing' % METRICS_PORT)
    ep = get(final, 'ENTRYPOINT')
    check(ep and json.loads(ep[-1])[:3] == ['tapisd', '--listen', '0.0.0.0:7233'],
          'Containerfile: ENTRYPOINT should be ["tapisd", "--listen", "0.0.0.0:7233"]')
    image_entrypoint = json.loads(ep[-1]) if ep else []
    cmd = get(final, 'CMD')
    image_cmd = json.loads(cmd[-1]) if cmd and cmd[-1].startswith('[') else shlex.split(
        cmd[-1]) if cmd else []
    check_metrics_arg(image_entrypoint + image_cmd, 'Containerfile ENTRYPOINT + CMD')
    hc = get(final, 'HEALTHCHECK')
    if check(hc and ' CMD ' in ' ' + hc[-1], 'Containerfile: no HEALTHCHECK CMD'):
        cmd = hc[-1].split('CMD', 1)[1].strip()
        check('7233' in cmd, 'Containerfile: HEALTHCHECK does not use port 7233')
        health_command_works(cmd, 'Containerfile HEALTHCHECK')

    compose = yaml_documents(read(os.path.join(base, 'compose.yaml')))[0]
    svc = dig(compose, 'services', 'tapisd') or {}
    check('7233:7233' in [str(p) for p in svc.get('ports') or []], 'compose.yaml: port 7233 not published')
    check(any(str(v).endswith(':/var/lib/tapis') for v in svc.get('volumes') or []),
          'compose.yaml: no volume on /var/lib/tapis')
    ctx = os.path.normpath(os.path.join(base, dig(svc, 'build', 'context') or '.'))
    df = dig(svc, 'build', 'dockerfile') or ''
    check(os.path.isfile(os.path.join(ctx, df)), 'compose.yaml: build.dockerfile %r not found' % df)
    vol_names = {str(v).split(':')[0] for v in svc.get('volumes') or []}
    check(vol_names <= set((compose.get('volumes') or {}).keys()),
          'compose.yaml: volumes not declared at the top level')

    # Metrics: tapisd started with --metrics (in compose.yaml itself, not only
    # by the image's CMD), not published beyond loopback, scraped by the
    # prometheus service at that port every 15 s.
    own = (as_argv(svc.get('entrypoint')) or []) + (as_argv(svc.get('command')) or [])
    check(metrics_addresses(own), 'compose.yaml: the tapisd service does not pass --metrics')
    argv = (as_argv(svc.get('entrypoint')) or image_entrypoint) + (
        image_cmd if svc.get('command') is None else as_argv(svc.get('command')))
    check_metrics_arg(argv, 'compose.yaml tapisd')
    addr = (metrics_addresses(argv) or [''])[0]
    mport = int(addr.rsplit(':', 1)[1]) if re.search(r':\d+$', addr) else None
    for p in svc.get('ports') or []:
        parts = str(p).split(':')
        check(parts[-1].split('/')[0] != str(mport) or (len(parts) == 3 and parts[0] in (
            '127.0.0.1', '[::1]')), 'compose.yaml: metrics port published beyond loopback: %s' % p)
    services = compose.get('services') or {}
    for name, s in services.items():
        for v in (s or {}).get('volumes') or []:
            src = str(v).split(':')[0]
            if src.startswith('.') or src.startswith('/'):
                check(os.path.exists(os.path.normpath(os.path.join(base, src))),
                      'compose.yaml: %s: bind mount %s: no such path' % (name, src))
    prom = [n for n, s in services.items() if 'prometheus' in str((s or {}).get('image', ''))]
    if check(prom, 'compose.yaml: no prometheus service (image prom/prometheus)'):
        mounts = [str(v).split(':') for v in services[prom[0]].get('volumes') or []]
        check(['./prometheus.yml', '/etc/prometheus/prometheus.yml'] in [m[:2] for m in mounts],
              'compose.yaml: %s does not mount ./prometheus.yml on /etc/prometheus/prometheus.yml'
              % prom[0])
    conf = yaml_documents(read(os.path.join(base, 'prometheus.yml')))[0]
    jobs = []
    for sc in conf.get('scrape_configs') or []:
        targets = [str(t) for st in sc.get('static_configs') or [] for t in st.get('targets') or []]
        if any(t.split(':')[0] == 'tapisd' for t in targets):
            jobs.append((sc, targets))
    if check(jobs, 'prometheus.yml: no scrape config with a tapisd:PORT target'):
        sc, targets = jobs[0]
        check(targets == ['tapisd:%s' % mport],
              'prometheus.yml: targets %s, but compose runs tapisd --metrics %s' % (targets, addr))
        check(mport == METRICS_PORT, 'compose.yaml: metrics port %s, not %d' % (mport, METRICS_PORT))
        interval = sc.get('scrape_interval') or dig(conf, 'global', 'scrape_interval')
        check(interval == '15s', 'prometheus.yml: tapisd scraped every %s, not 15s' % interval)
        check(sc.get('metrics_path', METRICS_PATH) == METRICS_PATH,
              'prometheus.yml: metrics_path %r' % sc.get('metrics_path'))
        check(sc.get('scheme', 'http') == 'http', 'prometheus.yml: tapisd serves plain http')
    check_tapisd_options(argv, 'compose.yaml tapisd')
    check_compose_cluster(compose, svc, image_entrypoint, image_cmd, conf)
    return 0


def depends_on(s):
    """The services S depends on (compose's list or mapping form)."""
    return list(s.get('depends_on') or [])


def check_compose_cluster(compose, single, entrypoint, cmd, prom):
    """The cluster of compose.yaml: a redis service and three tapisd nodes
    (the other services of the single tapisd's image) in a profile, so that a
    plain `up` still runs the single tapisd alone; each node with --redis at
    that service, a --node-id of its own, its service name as --advertise,
    a host port and a volume of its own, tapisd's settings, and a target in
    prometheus.yml."""
    services = {n: s or {} for n, s in (compose.get('services') or {}).items()}
    check(not single.get('profiles'), 'compose.yaml: tapisd has a profile: a plain `up` skips it')
    redis = {n: s for n, s in services.items()
             if (as_argv(s.get('command')) or [''])[0] == 'redis-server'
             or str(s.get('image', '')).split(':')[0].split('/')[-1] == 'redis'}
    nodes = {n: s for n, s in services.items()
             if n != 'tapisd' and s.get('image') == single.get('image')}
    if not check(len(redis) == 1 and len(nodes) == 3,
                 'compose.yaml: wanted one redis service and three tapisd nodes, got %s and %s'
                 % (sorted(redis), sorted(nodes))):
        return
    rname, rsvc = next(iter(redis.items()))
    rport = int((flag_values(as_argv(rsvc.get('command')) or [], '--port') or ['6379'])[-1])
    check(not rsvc.get('ports'), 'compose.yaml: %s is published (Redis has no password here)' % rname)
    profiles = rsvc.get('profiles') or []
    check(profiles, 'compose.yaml: %s has no profile: a plain `up` runs it' % rname)
    declared = set((compose.get('volumes') or {}).keys())
    host_ports = {str(p).split(':')[-2] for p in single.get('ports') or [] if ':' in str(p)}
    volumes = {str(v).split(':')[0] for v in single.get('volumes') or []}
    ids = set()
    for n, s in nodes.items():
        what = 'compose.yaml ' + n
        argv = (as_argv(s.get('entrypoint')) or entrypoint) + (
            cmd if s.get('command') is None else as_argv(s.get('command')))
        check_metrics_arg(argv, what)
        check_tapisd_options(argv, what)
        check(flag_values(argv, '--redis') == ['%s:%d' % (rname, rport)],
              '%s: --redis %s, wanted %s:%d once' % (what, flag_values(argv, '--redis'), rname, rport))
        nid = flag_values(argv, '--node-id')
        check(len(nid) == 1 and NODE_ID_RE.fullmatch(nid[0]) and nid[0] not in ids,
              '%s: --node-id %s: wanted one, 1-32 of [A-Za-z0-9._-], no other node\'s' % (what, nid))
        ids.update(nid)
        _, lport = host_port((flag_values(argv, '--listen') or [''])[-1])
        check(flag_values(argv, '--advertise') == ['%s:%s' % (n, lport)],
              '%s: --advertise %s, wanted %s:%s (its service name, its --listen port)'
              % (what, flag_values(argv, '--advertise'), n, lport))
        check(s.get('profiles') == profiles, '%s: profiles %s, not %s\'s %s'
              % (what, s.get('profiles'), rname, profiles))
        check(rname in depends_on(s), '%s: does not depend on %s' % (what, rname))
        check(s.get('build') or s.get('pull_policy') == 'never',
              '%s: no build, pull_policy %r: compose would pull %s from a registry'
              % (what, s.get('pull_policy'), s.get('image')))
        ports = [str(p).split(':') for p in s.get('ports') or []]
        check(len(ports) == 1 and len(ports[0]) >= 2 and ports[0][-1] == str(lport)
              and ports[0][-2] not in host_ports,
              '%s: ports %s: wanted one, to %s, on a host port no other service has'
              % (what, s.get('ports'), lport))
        host_ports.update(p[-2] for p in ports if len(p) >= 2)
        vol = [str(v).split(':')[0] for v in s.get('volumes') or []
               if str(v).split(':')[1:2] == ['/var/lib/tapis']]
        check(len(vol) == 1 and vol[0] in declared and vol[0] not in volumes,
              '%s: /var/lib/tapis wants a volume of its own, declared at the top level' % what)
        volumes.update(vol)
        for key in ('expose', 'ulimits', 'read_only', 'tmpfs', 'cap_drop', 'security_opt',
                    'stop_signal', 'stop_grace_period', 'restart'):
            check(s.get(key) == single.get(key), '%s: %s %r, tapisd has %r'
                  % (what, key, s.get(key), single.get(key)))
    for n in nodes:
        jobs = [sc for sc in prom.get('scrape_configs') or [] if '%s:%d' % (n, METRICS_PORT) in [
            str(t) for st in sc.get('static_configs') or [] for t in st.get('targets') or []]]
        check(len(jobs) == 1 and (jobs[0].get('scrape_interval') or dig(
            prom, 'global', 'scrape_interval')) == '15s',
              'prometheus.yml: %s:%d wanted in one scrape config, every 15s' % (n, METRICS_PORT))


# --------------------------------------------------------------------------
# k8s
# --------------------------------------------------------------------------

def check_k8s():
    base = os.path.join(SRC, 'deploy', 'k8s')
    sts = yaml_documents(read(os.path.join(base, 'statefulset.yaml')))
    svcs = yaml_documents(read(os.path.join(base, 'service.yaml')))
    rdocs = yaml_documents(read(os.path.join(base, 'redis.yaml')))
    check([d.get('kind') for d in sts] == ['StatefulSet'], 'statefulset.yaml: one StatefulSet')
    check(all(d.get('kind') == 'Service' and d.get('apiVersion') == 'v1' for d in svcs) and svcs,
          'service.yaml: Services only')
    st = sts[0]
    check(st.get('apiVersion') == 'apps/v1', 'statefulset.yaml: apiVersion apps/v1')
    spec = st.get('spec') or {}
    check(spec.get('replicas') == 3, 'statefulset.yaml: three replicas (one cluster through Redis)')
    labels = dig(spec, 'template', 'metadata', 'labels') or {}
    sel = dig(spec, 'selector', 'matchLabels') or {}
    check(sel and all(labels.get(k) == v for k, v in sel.items()),
          'statefulset.yaml: selector does not match the pod labels')
    containers = dig(spec, 'template', 'spec', 'containers') or []
    if not check(len(containers) == 1, 'statefulset.yaml: one container'):
        return 0
    c = containers[0]
    ports = {p.get('name'): p.get('containerPort') for p in c.get('ports') or []}
    check(7233 in ports.values(), 'statefulset.yaml: containerPort 7233 missing')
    # Metrics: the port named "metrics", --metrics on it in the container's
    # args (after the image's ENTRYPOINT, instead of its CMD), the pod
    # annotations a Prometheus discovers pods by (strings, as Kubernetes wants).
    check(ports.get('metrics') == METRICS_PORT,
          'statefulset.yaml: containerPort "metrics" %d missing' % METRICS_PORT)
    img = {w: r for w, r in containerfile_instructions(read(os.path.join(
        SRC, 'deploy', 'container', 'Containerfile')))}
    args = c.get('args')
    check(isinstance(args, list) and metrics_addresses([str(a) for a in args]),
          'statefulset.yaml: the container args do not pass --metrics')
    argv = (c.get('command') or json.loads(img.get('ENTRYPOINT', '[]'))) + (
        args if args is not None else json.loads(img.get('CMD', '[]')))
    check_metrics_arg(argv, 'statefulset.yaml')
    ann = dig(spec, 'template', 'metadata', 'annotations') or {}
    want = {'prometheus.io/scrape': 'true', 'prometheus.io/port': str(METRICS_PORT),
            'prometheus.io/path': METRICS_PATH}
    for k, v in want.items():
        check(ann.get(k) == v, 'statefulset.yaml: pod annotation %s: %r wanted (a string), got %r'
              % (k, v, ann.get(k)))
    for probe in ('readinessProbe', 'livenessProbe'):
        p = c.get(probe) or {}
        tcp = dig(p, 'tcpSocket', 'port')
        cmd = dig(p, 'exec', 'command')
        check(tcp in (7233, 'tapis') or cmd, 'statefulset.yaml: %s: tcpSocket 7233 or exec' % probe)
        if cmd:
            check(cmd[:2] == ['sh', '-c'] and len(cmd) == 3, 'statefulset.yaml: %s: sh -c CMD' % probe)
            health_command_works(cmd[2], 'statefulset.yaml ' + probe)
    for kind in ('requests', 'limits'):
        for res in ('cpu', 'memory'):
            check(dig(c, 'resources', kind, res) is not None,
                  'statefulset.yaml: resources.%s.%s missing' % (kind, res))
    mounts = {m.get('mountPath'): m.get('name') for m in c.get('volumeMounts') or []}
    claims = {dig(v, 'metadata', 'name'): v for v in spec.get('volumeClaimTemplates') or []}
    name = mounts.get('/var/lib/tapis')
    check(name and name in claims, 'statefulset.yaml: /var/lib/tapis is not a volumeClaimTemplate')
    if name in claims:
        check(dig(claims[name], 'spec', 'resources', 'requests', 'storage'),
              'statefulset.yaml: the claim has no storage request')
    sc = dig(spec, 'template', 'spec', 'securityContext') or {}
    check(sc.get('runAsNonRoot') is True, 'statefulset.yaml: runAsNonRoot')
    user = [r for w, r in containerfile_instructions(read(os.path.join(
        SRC, 'deploy', 'container', 'Containerfile'))) if w == 'USER']
    if user and sc.get('runAsUser') is not None:
        check(str(sc.get('runAsUser')) == user[-1].split(':')[0],
              'statefulset.yaml: runAsUser differs from the image USER')
    by_name = {dig(s, 'metadata', 'name'): s for s in svcs}
    head = by_name.get(spec.get('serviceName'))
    check(head and dig(head, 'spec', 'clusterIP') == 'None',
          'statefulset.yaml: serviceName must name a headless Service in service.yaml')
    metrics_in = []
    for s in svcs:
        n = dig(s, 'metadata', 'name')
        ssel = dig(s, 'spec', 'selector') or {}
        check(ssel and all(labels.get(k) == v for k, v in ssel.items()),
              'service.yaml: %s does not select the pod' % n)
        sports = dig(s, 'spec', 'ports') or []
        check(7233 in [p.get('port') for p in sports], 'service.yaml: %s: no port 7233' % n)
        for p in sports:
            t = p.get('targetPort', p.get('port'))
            cport = ports.get(t, t)
            check(cport in ports.values() and p.get('port') == cport,
                  'service.yaml: %s: port %s to container port %s (same number, one of %s)'
                  % (n, p.get('port'), t, sorted(ports.values())))
            if cport == METRICS_PORT:
                metrics_in.append(n)
                # /metrics has no authentication: not on the players' address.
                check(dig(s, 'spec', 'type') in (None, 'ClusterIP'),
                      'service.yaml: %s (type %s) exposes the metrics port outside the cluster'
                      % (n, dig(s, 'spec', 'type')))
    check(metrics_in, 'service.yaml: no Service has the metrics port %d' % METRICS_PORT)
    check_tapisd_options(argv, 'statefulset.yaml')
    check_k8s_cluster(c, argv, spec, svcs, rdocs)
    return 0


def check_k8s_cluster(c, argv, spec, svcs, rdocs):
    """The StatefulSet's cluster: --redis at a Service of redis.yaml that
    sends that port to one Deployment's pods; --node-id and --advertise from
    the pod's name (the downward API), --advertise in the headless Service,
    which names pods that are not ready yet too."""
    env = {e.get('name'): e for e in c.get('env') or []}
    for a in argv:
        for var in re.findall(r'\$\((\w+)\)', str(a)):
            check(var in env, 'statefulset.yaml: $(%s) in args but not in env' % var)
    check(dig(env.get('POD_NAME'), 'valueFrom', 'fieldRef', 'fieldPath') == 'metadata.name',
          'statefulset.yaml: env POD_NAME should be the pod\'s name (fieldRef metadata.name)')
    check(flag_values(argv, '--node-id') == ['$(POD_NAME)'],
          'statefulset.yaml: --node-id %s, wanted $(POD_NAME)' % flag_values(argv, '--node-id'))
    head = spec.get('serviceName')
    _, lport = host_port((flag_values(argv, '--listen') or [''])[-1])
    check(flag_values(argv, '--advertise') == ['$(POD_NAME).%s:%s' % (head, lport)],
          'statefulset.yaml: --advertise %s, wanted $(POD_NAME).%s:%s'
          % (flag_values(argv, '--advertise'), head, lport))
    heads = [s for s in svcs if dig(s, 'metadata', 'name') == head]
    check(heads and dig(heads[0], 'spec', 'publishNotReadyAddresses') is True,
          'service.yaml: %s: publishNotReadyAddresses: true wanted (the nodes reach each '
          'other at its names, ready or not)' % head)

    deps = [d for d in rdocs if d.get('kind') == 'Deployment']
    rsvcs = {dig(d, 'metadata', 'name'): d for d in rdocs if d.get('kind') == 'Service'}
    check(deps and rsvcs and len(deps) + len(rsvcs) == len(rdocs),
          'redis.yaml: Deployments and Services only, one of each at least')
    addr = flag_values(argv, '--redis')
    host, port = host_port(addr[0] if len(addr) == 1 else '')
    rs = rsvcs.get(host)
    if not check(rs, 'statefulset.yaml: --redis %s: wanted NAME:PORT once, NAME a Service of '
                 'redis.yaml (%s)' % (addr, sorted(rsvcs))):
        return
    check(dig(rs, 'spec', 'type') in (None, 'ClusterIP'),
          'redis.yaml: %s (type %s) is reachable from outside the cluster, without a password'
          % (host, dig(rs, 'spec', 'type')))
    sel = dig(rs, 'spec', 'selector') or {}
    pods = [d for d in deps if sel and all(
        (dig(d, 'spec', 'template', 'metadata', 'labels') or {}).get(k) == v for k, v in sel.items())]
    sports = [p for p in dig(rs, 'spec', 'ports') or [] if p.get('port') == port]
    if not check(len(pods) == 1 and sports, 'redis.yaml: %s should have port %s and select one '
                 'Deployment\'s pods' % (host, port)):
        return
    d = pods[0]
    check(dig(d, 'spec', 'replicas') in (None, 1), 'redis.yaml: one Redis (replicas share nothing)')
    labels = dig(d, 'spec', 'template', 'metadata', 'labels') or {}
    msel = dig(d, 'spec', 'selector', 'matchLabels') or {}
    check(msel and all(labels.get(k) == v for k, v in msel.items()),
          'redis.yaml: the Deployment\'s selector does not match its pod labels')
    target = sports[0].get('targetPort', port)
    cports = [x for ct in dig(d, 'spec', 'template', 'spec', 'containers') or []
              for p in ct.get('ports') or [] for x in (p.get('name'), p.get('containerPort'))]
    check(target in cports, 'redis.yaml: %s:%s goes to port %s, which the pod does not have'
          % (host, port, target))
    for s in svcs:  # the players' and the metrics' Services must not reach Redis
        ssel = dig(s, 'spec', 'selector') or {}
        check(not all(labels.get(k) == v for k, v in ssel.items()),
              'service.yaml: %s selects the Redis pods too' % dig(s, 'metadata', 'name'))


# --------------------------------------------------------------------------
# grafana
# --------------------------------------------------------------------------

# Families a dashboard may leave out; every other one of METRIC_FAMILIES has
# a panel.
DASHBOARD_OPTIONAL = {'process_start_time_seconds', 'tapis_received_bytes_total'}
# histogram_quantile(q, ...FAMILY_bucket...) the dashboard must draw.
DASHBOARD_QUANTILES = {('tapis_action_latency_seconds', 0.5), ('tapis_action_latency_seconds', 0.99),
                       ('tapis_action_latency_seconds', 0.999), ('tapis_loop_lag_seconds', 0.99),
                       ('tapis_loop_lag_seconds', 0.999), ('tapis_journal_commit_seconds', 0.99)}


def all_panels(panels):
    for p in panels or []:
        yield p
        yield from all_panels(p.get('panels'))  # a collapsed row keeps its panels


def check_grafana():
    base = os.path.join(SRC, 'deploy', 'grafana')
    path = os.path.join(base, 'tapis-dashboard.json')
    try:
        dash = json.loads(read(path))
    except ValueError as e:
        check(False, 'tapis-dashboard.json: not JSON: %s' % e)
        return 0
    check(isinstance(dash.get('schemaVersion'), int) and dash['schemaVersion'] >= 36,
          'tapis-dashboard.json: schemaVersion %r, wanted 36 or later' % dash.get('schemaVersion'))
    check(dash.get('uid') and dash.get('title'), 'tapis-dashboard.json: no uid or title')
    # The data source: an import input (${DS_...}) or a `datasource` variable.
    variables = {v.get('name'): v for v in dig(dash, 'templating', 'list') or []}
    ds_refs = {'${%s}' % i.get('name') for i in dash.get('__inputs') or []
               if i.get('type') == 'datasource' and i.get('pluginId') == 'prometheus'}
    dv = variables.get('datasource')
    if dv:
        check(dv.get('type') == 'datasource' and dv.get('query') == 'prometheus',
              'tapis-dashboard.json: variable datasource should be of type datasource, prometheus')
        ds_refs |= {'${datasource}', '$datasource'}
    check(ds_refs, 'tapis-dashboard.json: no ${DS_PROMETHEUS} input nor `datasource` variable')

    def ds_ok(ds):
        return isinstance(ds, dict) and ds.get('type') == 'prometheus' and ds.get('uid') in ds_refs
    iv = variables.get('instance') or {}
    q = iv.get('query')
    q = q.get('query') if isinstance(q, dict) else q
    check(iv.get('type') == 'query' and squash(str(q)).replace(' ', '')
          == 'label_values(tapis_build_info,instance)',
          'tapis-dashboard.json: variable instance should be label_values(tapis_build_info, instance)')
    check(ds_ok(iv.get('datasource')), 'tapis-dashboard.json: variable instance has no data source')

    used, quantiles, ids = set(), set(), []
    for p in all_panels(dash.get('panels')):
        title = '%s panel %r' % ('tapis-dashboard.json:', p.get('title'))
        ids.append(p.get('id'))
        check(all(k in (p.get('gridPos') or {}) for k in 'hwxy'), '%s: no gridPos' % title)
        if p.get('type') == 'row':
            check(not p.get('targets'), '%s: a row with queries' % title)
            continue
        check(ds_ok(p.get('datasource')), '%s: data source %r' % (title, p.get('datasource')))
        targets = p.get('targets') or []
        check(targets, '%s: no queries' % title)
        for t in targets:
            expr = t.get('expr') or ''
            check(expr.strip(), '%s: a query without expr' % title)
            check(t.get('datasource') is None or ds_ok(t.get('datasource')),
                  '%s: query %s: data source %r' % (title, t.get('refId'), t.get('datasource')))
            for name, labels in promql_selectors(expr):
                fam = metric_family(name) if name else None
                check(fam, '%s: %r names %s, not a family of docs/METRICS.md' % (title, expr, name))
                used.add(fam)
                check('$instance' in labels or '${instance}' in labels,
                      '%s: %s{%s} is not limited to $instance' % (title, name, labels))
                if fam and METRIC_FAMILIES.get(fam) == 'histogram':
                    check(name.endswith(('_bucket', '_sum', '_count')),
                          '%s: histogram %s without a series suffix' % (title, name))
            for m in re.finditer(r'histogram_quantile\(\s*([0-9.]+)\s*,(.*)', expr):
                arg = m.group(2)
                buckets = [n for n, _ in promql_selectors(arg) if n and n.endswith('_bucket')]
                by = re.search(r'\bby\s*\(([^)]*)\)', arg)
                check(buckets and 'le' in [x.strip() for x in (by.group(1) if by else '').split(',')]
                      and re.search(r'\brate\(\s*\w+_bucket\{[^}]*\}\[5m\]\)', arg),
                      '%s: %r: wanted histogram_quantile(q, sum by (le) (rate(X_bucket[5m])))'
                      % (title, expr))
                quantiles |= {(b[:-len('_bucket')], float(m.group(1))) for b in buckets}
    check(len(ids) == len(set(ids)) and None not in ids, 'tapis-dashboard.json: panel ids not unique')
    missing = set(METRIC_FAMILIES) - DASHBOARD_OPTIONAL - used
    check(not missing, 'tapis-dashboard.json: no panel for %s' % sorted(missing))
    check(DASHBOARD_QUANTILES <= quantiles, 'tapis-dashboard.json: quantiles missing: %s'
          % sorted(DASHBOARD_QUANTILES - quantiles))

    # Provisioning (compose.yaml's grafana service): the data source, and the
    # dashboard folder where compose.yaml mounts tapis-dashboard.json.
    prov = os.path.join(base, 'provisioning')
    compose = yaml_documents(read(os.path.join(SRC, 'deploy', 'container', 'compose.yaml')))[0]
    graf = [s for s in (compose.get('services') or {}).values()
            if 'grafana' in str((s or {}).get('image', ''))]
    if not graf:
        check(not os.path.isdir(prov), 'deploy/grafana/provisioning/ but no grafana in compose.yaml')
        return 0
    mounts = {}
    for v in graf[0].get('volumes') or []:
        parts = str(v).split(':')
        mounts[os.path.normpath(os.path.join(SRC, 'deploy', 'container', parts[0]))] = parts[1]
    check(mounts.get(prov) == '/etc/grafana/provisioning',
          'compose.yaml: grafana does not mount deploy/grafana/provisioning on /etc/grafana/provisioning')
    dsconf = yaml_documents(read(os.path.join(prov, 'datasources', 'prometheus.yaml')))[0]
    srcs = dsconf.get('datasources') or []
    check(any(d.get('type') == 'prometheus' and d.get('isDefault') is True
              and re.match(r'http://prometheus:9090/?$', str(d.get('url'))) for d in srcs),
          'grafana provisioning: no default prometheus data source at http://prometheus:9090')
    dbconf = yaml_documents(read(os.path.join(prov, 'dashboards', 'tapis.yaml')))[0]
    folders = [dig(p, 'options', 'path') for p in dbconf.get('providers') or []]
    check(os.path.dirname(mounts.get(path, '')) in folders,
          'grafana provisioning: the dashboard is mounted at %r, providers read %s'
          % (mounts.get(path), folders))
    return 0


# --------------------------------------------------------------------------
# install
# --------------------------------------------------------------------------

def meson_command():
    intro = ENV.get('MESONINTROSPECT')
    if intro:
        cmd = shlex.split(intro)
        if cmd and cmd[-1] == 'introspect':
            return cmd[:-1]
    m = shutil.which('meson')
    if not m:
        raise SystemExit('meson not found')
    return [m]


def check_install():
    prefix = ENV.get('PREFIX', '/usr/local')
    unitdir = ENV.get('UNITDIR', os.path.join(prefix, 'lib', 'systemd', 'system'))
    check(os.path.isabs(prefix), 'install: prefix %r is not absolute' % prefix)
    check(unitdir.startswith(prefix.rstrip('/') + '/'),
          'install: unit dir %s is outside the prefix %s (a non-root --prefix install fails)'
          % (unitdir, prefix))
    with tempfile.TemporaryDirectory() as dest:
        r = run(meson_command() + ['install', '-C', BUILD, '--no-rebuild', '--destdir', dest])
        if not check(r.returncode == 0, 'install: meson install failed:\n' + r.stdout + r.stderr):
            return 0
        root = lambda *p: os.path.join(dest, *(x.lstrip('/') for x in p))
        installed = []
        for d, _, files in os.walk(dest):
            installed += [os.path.join(d, f) for f in files]
        outside = [p for p in installed if not p.startswith(root(prefix) + '/')]
        check(not outside, 'install: files outside the prefix: %s' % outside)
        bindir = root(prefix, ENV.get('BINDIR', 'bin'))
        for prog in PROGRAMS:
            exe = os.path.join(bindir, prog)
            check(os.access(exe, os.X_OK), 'install: %s missing or not executable' % exe)
        r = run([os.path.join(bindir, 'tapisd'), '--version'])
        check(r.returncode == 0 and r.stdout.startswith('tapisd '),
              'install: installed tapisd --version: %r' % (r.stdout + r.stderr))
        mandir = root(prefix, ENV.get('MANDIR', 'share/man'))
        for _, page in PROGRAMS.values():
            p = os.path.join(mandir, 'man' + page.rsplit('.', 1)[1], page)
            check(os.path.isfile(p), 'install: man page %s missing' % p)
        unit = os.path.join(root(unitdir), 'tapisd.service')
        if check(os.path.isfile(unit), 'install: %s missing' % unit):
            start = dict(parse_unit(read(unit)).get('Service', [])).get('ExecStart', '')
            exe = os.path.join(prefix, ENV.get('BINDIR', 'bin'), 'tapisd')
            check(start.split()[:1] == [exe], 'install: unit ExecStart=%r, not %s' % (start, exe))
        doc = root(prefix, ENV.get('DATADIR', 'share'), 'doc', 'tapis', 'PROTOCOL.md')
        check(os.path.isfile(doc), 'install: %s missing' % doc)
        print('installed:', *sorted(os.path.relpath(p, dest) for p in installed), sep='\n  ')
    return 0


CHECKS = {'unit': check_unit, 'man': check_man, 'container': check_container, 'k8s': check_k8s,
          'grafana': check_grafana, 'install': check_install}

if __name__ == '__main__':
    names = sys.argv[1:] or list(CHECKS)
    rc = 0
    for n in names:
        if n not in CHECKS:
            raise SystemExit('unknown check %r (%s)' % (n, ', '.join(CHECKS)))
        CHECKS[n]()
    if FAILURES:
        print('%d failure(s)' % len(FAILURES))
        sys.exit(1)
    print('ok')
