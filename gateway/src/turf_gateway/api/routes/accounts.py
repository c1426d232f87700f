"""R30's account links: confirming an email address, a forgotten password, and the organizer's list of mail. The use
cases are :class:`turf_gateway.handlers.accounts.Accounts`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from turf_gateway.adapters.ratelimit import client_ip
from turf_gateway.api import schemas as S
from turf_gateway.api.deps import AccountsCase, CurrentPlayer, MyAccountCase, MyDataCase, Organizer, bearer_token
from turf_gateway.handlers.myaccount import PasswordChange, ProfilePatch, Withdrawal
from turf_gateway.handlers.password_policy import MAX_LENGTH

router = APIRouter(tags=["accounts"])

Token = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class TokenBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: Token


class ResetAsk(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=320)]


class ResetComplete(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: Token
    new_password: Annotated[str, Field(min_length=1, max_length=MAX_LENGTH)]


@router.patch("/me", response_model=S.Me)
async def update_me(patch: ProfilePatch, caller: CurrentPlayer, mine: MyAccountCase) -> S.Me:
    """Change any of name, Discord name, email, home address (R30): 200 the profile as ``GET /me``. A new email is
    unconfirmed until the link mailed to it is used; a new home address makes the player ``pending`` until verified
    again (R27), territories and cards untouched. 409 ``email_taken`` / ``discord_taken``; 409 ``not_in_board``
    for an address outside the board (nothing changed)."""
    return await mine.update(caller, patch)


@router.put("/me/password", status_code=204)
async def change_password(body: PasswordChange, caller: CurrentPlayer, mine: MyAccountCase,
                          request: Request) -> Response:
    """Change the password (R30): 204, the caller's other sessions ended. 401 ``unauthenticated`` for a wrong
    current password; 422 ``weak_password``; 429 past ``password_player``."""
    await mine.change_password(caller, body, bearer_token(request))
    return Response(status_code=204)


@router.post("/me/password/check", status_code=204)
async def check_password(body: Withdrawal, caller: CurrentPlayer, mine: MyAccountCase) -> Response:
    """Whether ``password`` is the caller's (R30), asked before a step that needs it is confirmed (the page asks it
    before "withdraw for good?"): 204, nothing changed. 401 ``unauthenticated`` for a wrong one; 429 past
    ``password_player``, as every password asked of a signed-in player."""
    await mine.check_password(caller, body.password)
    return Response(status_code=204)


@router.get("/me/export", response_model=S.MyData)
async def export(caller: CurrentPlayer, mine: MyDataCase) -> S.MyData:
    """Everything the game holds about the caller, as JSON (R30): profile, notifications, cards, trades and the
    season record."""
    return await mine.export(caller)


@router.delete("/me", status_code=204)
async def withdraw(body: Withdrawal, caller: CurrentPlayer, mine: MyAccountCase) -> Response:
    """Withdraw for good (R30), the password required: 204 once it holds. It takes effect as a disqualification
    (R28: towns unclaimed, out of the standings); sign-in is refused from then on; email, Discord name, home
    address, location fixes, push subscriptions and notifications are erased; public history keeps the moves under
    "a withdrawn player". 401 ``unauthenticated`` for a wrong password; 403 for the organizer."""
    await mine.withdraw(caller, body.password)
    return Response(status_code=204)


@router.post("/me/email/confirm", response_model=S.EmailConfirmed)
async def confirm_email(body: TokenBody, accounts: AccountsCase) -> S.EmailConfirmed:
    """Confirm the email address a link was mailed to (R30; the token is the credential, so a link opened where
    nobody is signed in works). 410 ``token_expired`` for a used, voided, expired or unknown token."""
    return await accounts.confirm_email(body.token)


@router.post("/password-resets", status_code=202, response_model=S.ResetRequested)
async def request_reset(body: ResetAsk, accounts: AccountsCase, request: Request,
                        tasks: BackgroundTasks) -> S.ResetRequested:
    """Ask for a password reset link (R30): 202 with the same sentence whether or not the address is registered;
    the link is made and mailed after the answer. 429 ``rate_limited`` past ``resets_email`` (per address asked)
    or ``resets_ip`` (per client)."""
    answer = await accounts.request_reset(body.email, client_ip(request))
    tasks.add_task(accounts.send_reset, body.email)
    return answer


@router.post("/password-resets/check", status_code=204)
async def check_reset(body: TokenBody, accounts: AccountsCase) -> Response:
    """Whether a reset link's token still works (R30), so the page behind the link says at once when it does not:
    204, nothing changed (the token stays usable). 410 ``token_expired`` for a used, voided, expired or unknown
    token."""
    await accounts.check_reset(body.token)
    return Response(status_code=204)


@router.post("/password-resets/complete", status_code=204)
async def complete_reset(body: ResetComplete, accounts: AccountsCase) -> Response:
    """Choose a new password with a reset link's token (R30): 204, every session of the player ended. 410
    ``token_expired`` for a used, voided, expired or unknown token; 422 ``weak_password`` (the link stays usable)."""
    await accounts.complete_reset(body.token, body.new_password)
    return Response(status_code=204)


@router.get("/admin/mail", response_model=S.MailList)
async def mail(_: Organizer, accounts: AccountsCase) -> S.MailList:
    """The latest mail the product sent or tried to (R30), newest first: status, attempts, the relay's last error;
    the links too when mail is written as .eml files (a rehearsal follows them)."""
    return await accounts.mail()
