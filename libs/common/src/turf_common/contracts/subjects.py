"""Every NATS subject, in one place. Events: noun + past tense; commands: noun (plural) + imperative."""

# commands (request/reply)
GEO_LOCATE = "geo.locate"
GEO_ERASE_TRAILS = "geo.erase_trails"   # R30: the trails geo-verify keeps (R7.1), one player's or all
GEO_PLAYER_FIXES = "geo.player_fixes"   # R30: one player's trail, for their export
GEO_VERIFY = "geo.verify"            # R7 and R7.1 for a batch of fixes whose trails the asker carries
# The claim path is a pipeline (docs/architecture/claim-path.md): the gateway asks claims.submit / claims.check,
# which geo-verify serves (R7, R7.1 against the trail it keeps), and geo-verify hands the verified claim on to the
# claims service on the subjects below, which only geo-verify may publish (NATS permissions, turfwar.natsauth)
CLAIMS_SUBMIT = "claims.submit"
CLAIMS_CHECK = "claims.check"
CLAIMS_VERIFIED_SUBMIT = "claims.verified.submit"
CLAIMS_VERIFIED_CHECK = "claims.verified.check"
CLAIMS_STATE = "claims.state"          # read model for the gateway: territory ownership
CLAIMS_PLAYER = "claims.player"        # claims_left_today for GET /me
CLAIMS_FLAGS = "claims.flags"          # anti-spoofing flags for the organizer
CLAIMS_OUTLOOK = "claims.outlook"      # a player's territories, War deadlines and reclaim windows
CLAIMS_LIST = "claims.list"            # the claim log for the organizer (dashboard, pickers, CSV export)
CLOCK_SET = "clock.set"
CLOCK_GET = "clock.get"
CLOCK_SEASONS = "clock.seasons"   # the gateway → the clock: the catalog of seasons (R31)
SCORING_LEADERBOARD = "scoring.leaderboard"
SCORING_RESULTS = "scoring.results"
SCORING_ADJUST = "scoring.adjust"      # organizer correction adjust_score (R28)
CLAIMS_CORRECT = "claims.correct"      # organizer corrections of ownership (R28)
# R28: a disqualification applied by claims before the organizer's answer (the player.disqualified event, as a
# request with the same event id: applied once, whichever comes first)
CLAIMS_DISQUALIFY = "claims.disqualify"
CLAIMS_ERASE_TRAILS = "claims.erase_trails"   # R30: every location fix, after the season
CLAIMS_PLAYER_FIXES = "claims.player_fixes"   # R30: one player's stored fixes, for their export
SCORING_DISQUALIFY = "scoring.disqualify"   # ... and by scoring (the player leaves the standings)
SCORING_VERIFY = "scoring.verify"   # R25: a verification applied by scoring (the player enters the standings) likewise
CORRECTION_APPLIED = "correction.applied"
# core NATS, every gateway (no queue group): drop cached sessions (turf_gateway.adapters.session_cache)
GATEWAY_SESSIONS_REVOKED = "gateway.sessions.revoked"


def health(service: str) -> str:
    return f"svc.{service}.health"


# events (JetStream)
CLAIM_ACCEPTED = "claim.accepted"
CLAIM_REJECTED = "claim.rejected"
FLAG_RAISED = "flag.raised"
TERRITORY_CHANGED = "territory.changed"
SCORE_UPDATED = "score.updated"
CLOCK_SEASON_STARTED = "clock.season_started"
CLOCK_WEEK_STARTED = "clock.week_started"
CLOCK_DAY_STARTED = "clock.day_started"
CLOCK_DAY_CLOSED = "clock.day_closed"
CLOCK_SEASON_ENDED = "clock.season_ended"
CLOCK_CHANGED = "clock.changed"
SEASON_FINAL_RESULTS = "season.final_results"
# R31: the gateway announces the organizer's seasons
SEASON_CREATED = "season.created"
SEASON_UPDATED = "season.updated"
SEASON_JOINED = "season.joined"   # R31: a player takes part in a season (cards deals to them, scoring ranks them)

SERVICES = ("geo-verify", "claims", "cards", "scoring", "clock", "notify", "modes")

# ---- cards and trades ---------------------------------------------------------------------------
# commands served by the cards service (the gateway asks)
CARDS_HAND = "cards.hand"
CARDS_PLAY = "cards.play"
CARDS_CANCEL = "cards.cancel"
CARDS_SEED = "cards.seed"
CARDS_ADJUST = "cards.adjust"         # organizer correction adjust_hand (R28)
TRADES_PROPOSE = "trades.propose"
TRADES_ACCEPT = "trades.accept"
TRADES_DECLINE = "trades.decline"
TRADES_WITHDRAW = "trades.withdraw"
TRADES_LIST = "trades.list"
CARDS_TRADE_HOLDERS = "cards.trade_holders"   # R18: who may be asked for a trade (the play page's Trade form)
# card effects served by the claims service (the cards service's sagas ask; idempotent by command_id)
CLAIMS_EFFECT_DOUBLE_TROUBLE = "claims.effect.double_trouble"
CLAIMS_EFFECT_MULLIGAN = "claims.effect.mulligan"
CLAIMS_EFFECT_WAR = "claims.effect.war"
CLAIMS_EFFECT_JOKER = "claims.effect.joker"
CLAIMS_EFFECT_SCHEDULE = "claims.effect.schedule"
CLAIMS_EFFECT_UNSCHEDULE = "claims.effect.unschedule"
CLAIMS_EFFECT_TRADE = "claims.effect.trade"
CLAIMS_TRADE_CHECK = "claims.trade_check"
# events
CARD_DRAWN = "card.drawn"
CARD_DEALT = "card.dealt"
CARD_PLAYED = "card.played"
CARD_CONSUMED = "card.consumed"
CARD_RETURNED = "card.returned"
CARD_ADJUSTED = "card.adjusted"
CARD_SEED_COMMITTED = "card.seed_committed"
CARD_SEED_REVEALED = "card.seed_revealed"
TRADE_PROPOSED = "trade.proposed"
TRADE_ACCEPTED = "trade.accepted"
TRADE_DECLINED = "trade.declined"
TRADE_CANCELLED = "trade.cancelled"
PROTECTION_ACTIVATED = "protection.activated"
PROTECTION_LAPSED = "protection.lapsed"
PLAYER_VERIFIED = "player.verified"
PLAYER_DISQUALIFIED = "player.disqualified"
PLAYER_RENAMED = "player.renamed"   # R30: a new public name (PATCH /me)

# ---- notifications and announcements ---------------------------------------------------------------------------
# commands served by the notify service (the gateway asks)
NOTIFY_LIST = "notify.list"
NOTIFY_READ = "notify.read"
NOTIFY_PUSH_KEY = "notify.push_key"
NOTIFY_PUSH_SAVE = "notify.push_save"
NOTIFY_PUSH_DROP = "notify.push_drop"
NOTIFY_MAIL_RESULTS = "notify.mail_results"   # R30: the final results to each player's mailbox
NOTIFY_PUSH_LIST = "notify.push_list"   # R30: a player's push endpoints, for their export
NOTIFY_ANNOUNCEMENTS = "notify.announcements"
NOTIFY_ANNOUNCE = "notify.announce"
NOTIFY_MAIL = "notify.mail"
NOTIFY_MAIL_LIST = "notify.mail_list"
NOTIFY_MAIL_FORGET = "notify.mail_forget"
# events
ANNOUNCEMENT_PUBLISHED = "announcement.published"
MEDAL_EARNED = "medal.earned"   # a tier of a medal earned (docs/medals.md): a story on the spectator feed

# ---- turn-based modes: Team Turf and King of the Hill -------------------------------------------
# commands served by the modes service (the gateway asks)
MODES_CREATE_TEAM_TURF = "modes.team_turf.create"
MODES_OPEN_HILL = "modes.hill.open"
MODES_JOIN = "modes.join"
MODES_START = "modes.start"
MODES_PLACE = "modes.place"
MODES_ORDER = "modes.order"
MODES_WITHDRAW = "modes.withdraw"
MODES_CHOOSE = "modes.choose"
MODES_LEAVE = "modes.leave"
MODES_REMOVE = "modes.remove"
MODES_RESOLVE = "modes.resolve"
MODES_END = "modes.end"
MODES_GAME = "modes.game"
MODES_GAMES = "modes.games"
MODES_LOG = "modes.log"
MODES_YARD_OPEN = "modes.yard.open"        # the yard card game (docs/rules/yard-cards.md)
MODES_YARD_LOBBY = "modes.yard.lobby"
MODES_YARD_MOVE = "modes.yard.move"
# events
MODE_GAME_CREATED = "mode.game_created"
MODE_PLAYER_JOINED = "mode.player_joined"
MODE_PLAYER_LEFT = "mode.player_left"
MODE_ROOM_STARTED = "mode.room_started"
MODE_TROOPS_PLACED = "mode.troops_placed"
MODE_TURN_RESOLVED = "mode.turn_resolved"
MODE_ROUND_RESOLVED = "mode.round_resolved"
MODE_GAME_ENDED = "mode.game_ended"
MODE_YARD_MOVED = "mode.yard_moved"
