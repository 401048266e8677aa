"""The hand-written pieces the built-in lane workloads are composed from (generate.py).

Written for this project: no downloaded data. Edit here, then rerun the generator and
bump its ``VERSION``."""

FIRST = [
    "Amara",
    "Bruno",
    "Chen",
    "Dalia",
    "Emeka",
    "Freya",
    "Goran",
    "Hana",
    "Ivo",
    "Jun",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Oskar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tamar",
    "Uma",
    "Viktor",
    "Wen",
    "Yusuf",
]
LAST = [
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Haddad",
    "Tanaka",
    "Novak",
    "Ferreira",
    "Kowalski",
    "Mensah",
    "Ibarra",
    "Petrov",
    "Achterberg",
    "Sato",
    "Dubois",
    "Nakamura",
    "Oyelaran",
    "Varga",
    "Castillo",
]
SERVICES = [
    "payments-gateway",
    "search-indexer",
    "auth-service",
    "billing-worker",
    "media-transcoder",
    "order-api",
    "inventory-sync",
    "notification-hub",
    "ledger-db",
    "checkout-web",
    "report-builder",
    "geo-router",
    "session-cache",
    "invoice-renderer",
    "fraud-scorer",
    "catalog-feed",
]
REGIONS = ["eu-west-1", "us-east-2", "ap-south-1", "eu-central-1", "us-west-2", "sa-east-1"]
SYMPTOMS = [
    "requests returned HTTP 503 for {pct}% of traffic",
    "p99 latency rose from 180 ms to {ms} ms",
    "the queue backlog grew to {n} messages",
    "{n} customers were logged out and could not sign back in",
    "nightly exports stopped after writing {n} rows",
    "card authorisations failed with error code E{code}",
]
CAUSES = [
    "an expired TLS certificate on the internal load balancer",
    "a connection pool capped at {n} connections after a configuration change",
    "a schema migration that locked the {table} table for {mins} minutes",
    "a disk on {host} filling up with unrotated debug logs",
    "a retry storm triggered by a client library upgrade to version {ver}",
    "a feature flag enabling the new pricing path for all tenants at once",
    "DNS records for {host} pointing at a decommissioned node",
]
ACTIONS = [
    "add an alert when certificate expiry is under {days} days",
    "raise the pool limit to {n} and load-test it",
    "run migrations on {table} behind an online schema-change tool",
    "enable log rotation on every {svc} host",
    "cap client retries at {k} with jittered backoff",
    "stage flag rollouts at 1%, 10% and 50% of tenants",
    "add a synthetic check for {host}",
]
TABLES = ["orders", "invoices", "sessions", "accounts", "shipments", "payouts"]

PRODUCTS = [
    "the Orbit 2 smart thermostat",
    "a Lumen desk lamp",
    "the Tessel backup service",
    "a Kestrel e-bike",
    "the Harbor family calendar app",
    "a Quill note-taking tablet",
    "the Ferro induction hob",
    "a Nimbus mesh router",
    "the Atlas fitness band",
    "a Willow baby monitor",
    "the Cobalt password manager",
    "a Rook travel adapter",
]
ISSUES = [
    "keeps disconnecting every few minutes",
    "won't update to the latest firmware",
    "shows the wrong time after a power cut",
    "drains its battery overnight",
    "charged me twice this month",
    "lost all my saved settings",
    "makes a clicking noise",
    "cannot find my home network",
    "sends notifications hours late",
    "refuses my new card",
]
ASKS = [
    "What should I try first?",
    "Can you walk me through fixing it?",
    "Is this covered by the warranty?",
    "How do I get a refund?",
    "Is there a known problem right now?",
    "Should I reset it?",
]
CONTEXTS = [
    "I bought it {n} weeks ago.",
    "I have already restarted it twice.",
    "It worked fine until yesterday.",
    "I'm using it with an older phone.",
    "My partner has the same model and theirs is fine.",
    "I live in a flat with thick walls.",
]

TOPICS = [
    ("the town council", "a plan to pedestrianise the market square", "shop owners", "delivery access"),
    ("a regional hospital", "a new night-shift rota for nurses", "staff unions", "overtime pay"),
    ("a university library", "24-hour opening during exams", "students", "security costs"),
    ("a water utility", "replacing lead pipes in older districts", "residents", "road closures"),
    ("a logistics firm", "moving its depot to the edge of the city", "drivers", "longer commutes"),
    ("a school district", "a four-day week pilot", "parents", "childcare on Fridays"),
    ("a software company", "a switch to a monorepo", "engineers", "slower builds"),
    ("a museum", "free entry on Sundays", "volunteers", "crowding in small galleries"),
]
FIGURES = [
    "{n} people attended the first meeting.",
    "The budget set aside is {n} thousand euros.",
    "A survey found {pct}% in favour.",
    "The trial will run for {mins} weeks.",
    "Similar schemes elsewhere cut costs by {pct}%.",
    "The decision is expected in {mins} days.",
]

CLAUSES = [
    (
        "Limitation of liability",
        "Neither party shall be liable for indirect or consequential loss. The "
        "Supplier's total liability under this Agreement shall not exceed {cap} in any contract year, save "
        "that nothing limits liability for death or personal injury caused by negligence.",
    ),
    (
        "Termination",
        "Either party may terminate this Agreement on {days} days' written notice. The Customer "
        "may terminate immediately if the Supplier commits a material breach that is not remedied within "
        "{cure} days of notice.",
    ),
    (
        "Data protection",
        "The Supplier shall process Customer Personal Data only on documented instructions "
        "and shall notify the Customer of a Personal Data Breach within {hours} hours "
        "of becoming aware of it.",
    ),
    (
        "Service levels",
        "The Supplier shall make the Service available {sla}% of the time in each calendar "
        "month. Service credits of {credit}% of the monthly fee apply per full percentage point "
        "below target.",
    ),
    (
        "Payment",
        "Invoices are payable within {days} days. Late payments accrue interest at {rate}% above the "
        "base rate. The Supplier may suspend the Service if any invoice is more than {cure} days overdue.",
    ),
    (
        "Intellectual property",
        "All Deliverables vest in the Supplier. The Customer receives a non-exclusive "
        "licence to use the Deliverables for internal purposes for the term of {years} years.",
    ),
    (
        "Confidentiality",
        "Each party shall keep the other's Confidential Information secret for {years} years "
        "after termination, except information that is or becomes public other than by breach.",
    ),
    (
        "Assignment",
        "The Customer may not assign this Agreement without consent. The Supplier may assign it "
        "to any affiliate or successor on {days} days' notice.",
    ),
]
PARTIES = [
    "Northwind Analytics Ltd",
    "Bluefin Robotics GmbH",
    "Corvid Health BV",
    "Tallis Freight SA",
    "Meridian Learning Inc",
    "Ostrava Foods s.r.o.",
    "Parallax Media AB",
    "Quayside Energy plc",
]

TOOLS_HEADER = (
    "You are an operations agent. You solve the task in steps. Each step has a Thought, one Action "
    "calling a tool with JSON arguments, and the Observation the tool returned.\n"
    "Tools:\n"
    '- search_tickets({"query": str, "status": "open"|"closed"}) -> list of tickets\n'
    '- get_metrics({"service": str, "metric": str, "window": str}) -> numbers\n'
    '- restart({"service": str, "region": str}) -> status\n'
    '- page_oncall({"team": str, "message": str}) -> ack\n'
    '- finish({"answer": str}) -> ends the task\n'
)
