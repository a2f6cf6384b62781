import { ConflictError, newNoticeId, utcDay, type AlertTargetId, type Clock, type ConsumerId, type Environment, type OrgId } from '@wirehook/core';
import type { Logger } from '@wirehook/platform';
import type { ExpiringCertificate, ExpiryCursor, ExpiryWalkRow, NoticeDelivery, Store } from '@wirehook/store';
import { emptyState } from './failure-throttle.ts';
import { certificateExpiringContent, type NoticeCertificate } from './notice-content.ts';
import { OWNER } from './notice-outbox.ts';

/** The spec's notice: this many days before a client certificate's not_after. */
export const CERTIFICATE_NOTICE_DAYS = 14;
const WINDOW_MS = CERTIFICATE_NOTICE_DAYS * 86_400_000;
/** Certificates of the walk read per step (every tenant's, soonest first). */
export const CERTIFICATES_PER_PAGE = 100;
/** Certificates one notice lists at most (the soonest of its environments); the rest are counted in its words. */
export const CERTIFICATES_PER_NOTICE = 100;
/** A step ends after the organization that brings the certificates its notices list to this many. */
export const CERTIFICATES_PER_STEP = 200;
/** A new walk starts this long after the last one started, or when the UTC day changes, whichever comes first. */
const PASS_EVERY_MS = 60 * 60_000;
/** The walk takes a step at least this often, even while the outbox is full. */
const STEP_AT_LEAST_MS = 60_000;

/**
 * Tells organizations of their endpoints' client certificates (mutual TLS) that expire within
 * CERTIFICATE_NOTICE_DAYS: alert.certificate_expiring, once a UTC day at most per environment.
 * A walk reads every tenant's certificates expiring in [now, now + 14 days), soonest first, a
 * page a step (endpoints_tls_expiry), and for each organization it meets whose environment was
 * not told today, lists that environment's certificates in the window (the soonest
 * CERTIFICATES_PER_NOTICE, by endpoints_tls_tenant_expiry) in one notice to each of the
 * environment's targets; the certificates of environments without a target go in one notice to
 * the owner's e-mail (when SMTP is set and the organization has owner_email). The notices and the
 * day are committed with the organization's alert state (version-checked: a second replica
 * walking at once queues nothing twice). Certificates already expired are not told: attempts
 * with them fail (tls) and the delivery-failure notices say so. Endpoints of every status are:
 * a paused or disabled endpoint keeps its certificate when resumed. The walk's cursor is kept
 * here, not stored: a restart walks again from the soonest, and the day recorded per
 * organization makes that cost reads only.
 */
export class CertificateNotices {
  readonly #o: { store: Store; clock: Clock; logger: Logger; canEmail: boolean };
  #cursor: ExpiryCursor | null = null;
  #walking = false;
  #walkStartedAt: number | undefined;
  #stepAt: number | undefined;
  /** What the current walk queued, logged at its end. */
  #told = { organizations: 0, notices: 0, certificates: 0 };

  constructor(options: { store: Store; clock: Clock; logger: Logger; canEmail: boolean }) {
    this.#o = options;
  }

  /**
   * A step when the outbox had room (`room`: failure notices never wait behind more than one
   * step's), and at least once a minute.
   */
  async maybeStep(room: boolean): Promise<void> {
    const now = this.#o.clock.now();
    const since = this.#stepAt === undefined ? Infinity : now - this.#stepAt;
    if (!room && since < STEP_AT_LEAST_MS && since >= 0) return;
    this.#stepAt = now;
    await this.step();
  }

  /** One page of the walk (a new walk first, when one is due); its notices queued. */
  async step(): Promise<void> {
    const { store } = this.#o;
    const now = this.#o.clock.now();
    if (!this.#walking) {
      const started = this.#walkStartedAt;
      if (started !== undefined && now - started < PASS_EVERY_MS && now >= started && utcDay(now) === utcDay(started)) return;
      [this.#walking, this.#walkStartedAt, this.#cursor] = [true, now, null];
      this.#told = { organizations: 0, notices: 0, certificates: 0 };
    }
    const to = now + WINDOW_MS;
    const page = await store.endpoints.certificatesExpiring(now, to, this.#cursor, CERTIFICATES_PER_PAGE);
    // The organizations in the order the page meets them, with the environments it shows of each.
    const orgs = new Map<OrgId, { first: number; envs: Set<Environment> }>();
    page.forEach((c, i) => {
      const org = orgs.get(c.tenant.orgId) ?? orgs.set(c.tenant.orgId, { first: i, envs: new Set() }).get(c.tenant.orgId)!;
      org.envs.add(c.tenant.env);
    });
    let listed = 0;
    for (const [orgId, { first, envs }] of orgs) {
      const told = listed >= CERTIFICATES_PER_STEP ? null : await this.#tellOrConflict(orgId, envs, now, to);
      if (told === null) {
        // The next step starts at this organization's first certificate (those of the ones told are met
        // again and skipped: their day is recorded).
        if (first > 0) this.#cursor = cursorOf(page[first - 1]!);
        return;
      }
      listed += told;
    }
    const last = page.at(-1);
    if (page.length === CERTIFICATES_PER_PAGE && last !== undefined) {
      this.#cursor = cursorOf(last);
      return;
    }
    this.#walking = false;
    // A walk that told no one (the usual hour) is not worth a line at info.
    if (this.#told.organizations > 0) this.#o.logger.info({ ...this.#told }, 'alerting: certificate-expiry walk done');
    else this.#o.logger.debug({ ...this.#told }, 'alerting: certificate-expiry walk done');
  }

  /** The certificates the organization's notices list; null when another worker committed its state meanwhile (looked at again next step). */
  async #tellOrConflict(orgId: OrgId, envs: ReadonlySet<Environment>, now: number, to: number): Promise<number | null> {
    try {
      return await this.#tell(orgId, envs, now, to);
    } catch (err) {
      if (err instanceof ConflictError) return null;
      throw err;
    }
  }

  /** Queues the organization's notices of the environments in `envs` not told today. @returns the certificates they list. */
  async #tell(orgId: OrgId, envs: ReadonlySet<Environment>, now: number, to: number): Promise<number> {
    const { store } = this.#o;
    const loaded = (await store.alerts.state(orgId)) ?? emptyState();
    const day = utcDay(now);
    const due = (['live', 'test'] as const).filter((env) => envs.has(env) && loaded.certificatesDay?.[env] !== day);
    if (due.length === 0) return 0;
    const notices: NoticeDelivery[] = [];
    const told: Record<string, string> = {};
    const consumers = new Map<ConsumerId, string | null>();
    let listed = 0;
    for (const group of await this.#recipients(orgId, due)) {
      const certificates = await this.#certificates(orgId, group.envs, now, to, consumers);
      // Removed since the walk read them: nothing to tell, and the day is not spent.
      if (certificates.listed.length === 0) continue;
      const content = certificateExpiringContent(certificates.listed, certificates.more, CERTIFICATE_NOTICE_DAYS, now);
      const body = JSON.stringify(content);
      for (const targetId of group.to) notices.push({ id: newNoticeId(), orgId, targetId, type: 'alert.certificate_expiring', body, createdAt: now });
      for (const env of content.data.environments) told[env] = day;
      listed += certificates.listed.length;
    }
    if (notices.length === 0) return 0;
    // Decided on `loaded`: refused (ConflictError) if another worker committed since.
    await store.alerts.commitStep(orgId, [], { ...loaded, certificatesDay: { ...loaded.certificatesDay, ...told }, version: loaded.version + 1 }, notices);
    this.#told.organizations += 1;
    this.#told.notices += notices.length;
    this.#told.certificates += listed;
    return listed;
  }

  /**
   * Who is told of which environments: each environment to its own targets; those without one
   * together to the owner's e-mail, when it can go (none: not told, and not recorded as told).
   */
  async #recipients(orgId: OrgId, envs: readonly Environment[]): Promise<{ envs: Environment[]; to: AlertTargetId[] }[]> {
    const { store } = this.#o;
    const groups: { envs: Environment[]; to: AlertTargetId[] }[] = [];
    const untargeted: Environment[] = [];
    for (const env of envs) {
      const targets = await store.alerts.targets({ orgId, env });
      if (targets.length > 0) groups.push({ envs: [env], to: targets.map((t) => t.id) });
      else untargeted.push(env);
    }
    if (untargeted.length > 0 && this.#o.canEmail && (await store.orgs.get(orgId))?.ownerEmail) groups.push({ envs: untargeted, to: [OWNER] });
    return groups;
  }

  /** The soonest CERTIFICATES_PER_NOTICE certificates of the environments in the window, with their customers; `more`: there are others. */
  async #certificates(
    orgId: OrgId,
    envs: readonly Environment[],
    now: number,
    to: number,
    consumers: Map<ConsumerId, string | null>,
  ): Promise<{ listed: NoticeCertificate[]; more: boolean }> {
    const { store } = this.#o;
    const read: ExpiringCertificate[] = [];
    for (const env of envs) read.push(...(await store.endpoints.certificatesExpiringOf({ orgId, env }, now, to, CERTIFICATES_PER_NOTICE + 1)));
    read.sort((a, b) => a.notAfter - b.notAfter || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const listed: NoticeCertificate[] = [];
    for (const certificate of read.slice(0, CERTIFICATES_PER_NOTICE)) {
      if (!consumers.has(certificate.consumerId)) {
        consumers.set(certificate.consumerId, (await store.consumers.get(certificate.tenant, certificate.consumerId))?.externalId ?? null);
      }
      listed.push({ certificate, consumerExternalId: consumers.get(certificate.consumerId) ?? null });
    }
    return { listed, more: read.length > CERTIFICATES_PER_NOTICE };
  }
}

function cursorOf(c: ExpiryWalkRow): ExpiryCursor {
  return { notAfter: c.notAfter, id: c.id };
}
