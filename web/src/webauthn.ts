// Passkeys (WebAuthn) between allauth's JSON and the browser: the server's creation and
// request options (binary fields as base64url, the WebAuthn JSON encoding) → the
// `navigator.credentials` arguments, and the credential made or used → JSON for the server.
// The browser's own `parse*OptionsFromJSON` and `toJSON()` are used when it has them.
import { gettext } from "./i18n";

export function base64urlToBuffer(text: string): ArrayBuffer {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out.buffer;
}

export function bufferToBase64url(buffer: ArrayBuffer | ArrayBufferView): string {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let raw = "";
  for (const b of bytes) raw += String.fromCharCode(b);
  return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

type Json = Record<string, unknown>;

function withIds(list: unknown): PublicKeyCredentialDescriptor[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((c: Json) => ({ ...(c as object), id: base64urlToBuffer(String(c.id)) }) as PublicKeyCredentialDescriptor);
}

/** allauth's `creation_options.publicKey` → `PublicKeyCredentialCreationOptions`. */
export function creationOptions(json: Json): PublicKeyCredentialCreationOptions {
  const user = json.user as Json;
  return {
    ...(json as object),
    challenge: base64urlToBuffer(String(json.challenge)),
    user: { ...(user as object), id: base64urlToBuffer(String(user.id)) } as PublicKeyCredentialUserEntity,
    excludeCredentials: withIds(json.excludeCredentials),
  } as PublicKeyCredentialCreationOptions;
}

/** allauth's `request_options.publicKey` → `PublicKeyCredentialRequestOptions`. */
export function requestOptions(json: Json): PublicKeyCredentialRequestOptions {
  return {
    ...(json as object),
    challenge: base64urlToBuffer(String(json.challenge)),
    allowCredentials: withIds(json.allowCredentials),
  } as PublicKeyCredentialRequestOptions;
}

interface CredentialLike {
  id: string;
  rawId: ArrayBuffer;
  type: string;
  authenticatorAttachment?: string | null;
  response: Record<string, unknown>;
  getClientExtensionResults?: () => unknown;
  toJSON?: () => unknown;
}

/** A credential → the WebAuthn JSON encoding allauth reads. */
export function credentialJson(credential: CredentialLike): Json {
  if (typeof credential.toJSON === "function") return credential.toJSON() as Json;
  const response: Json = {};
  const r = credential.response;
  for (const name of ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle"]) {
    const value = r[name];
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) response[name] = bufferToBase64url(value as ArrayBuffer);
  }
  if (typeof r.getTransports === "function") response.transports = (r.getTransports as () => string[]).call(r);
  return {
    id: credential.id,
    rawId: bufferToBase64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? null,
    response,
    clientExtensionResults: credential.getClientExtensionResults?.() ?? {},
  };
}

/** Passkeys work here: the API exists and the page is a secure context (https, or
 * http://localhost). */
export function passkeysSupported(): boolean {
  return typeof window !== "undefined" && window.isSecureContext && typeof window.PublicKeyCredential === "function" && !!navigator.credentials;
}

type StaticParsers = {
  parseCreationOptionsFromJSON?: (json: unknown) => PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON?: (json: unknown) => PublicKeyCredentialRequestOptions;
};

/** Makes a passkey with the server's creation options; its JSON for the server. */
export async function createPasskey(options: { publicKey: Json }): Promise<Json> {
  const parsers = PublicKeyCredential as unknown as StaticParsers;
  const publicKey = parsers.parseCreationOptionsFromJSON
    ? parsers.parseCreationOptionsFromJSON(options.publicKey)
    : creationOptions(options.publicKey);
  const made = await navigator.credentials.create({ publicKey });
  if (!made) throw new Error(gettext("No passkey was made."));
  return credentialJson(made as unknown as CredentialLike);
}

/** Uses a passkey (any of this site's: no name typed) with the server's request options. */
export async function usePasskey(options: { publicKey: Json }): Promise<Json> {
  const parsers = PublicKeyCredential as unknown as StaticParsers;
  const publicKey = parsers.parseRequestOptionsFromJSON
    ? parsers.parseRequestOptionsFromJSON(options.publicKey)
    : requestOptions(options.publicKey);
  const used = await navigator.credentials.get({ publicKey });
  if (!used) throw new Error(gettext("No passkey was used."));
  return credentialJson(used as unknown as CredentialLike);
}

/** A name for a new passkey: the browser and system it was made on ("Chrome on Linux"). */
export function passkeyName(userAgent: string): string {
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : "Browser";
  const system = /Android/.test(userAgent)
    ? "Android"
    : /iPhone|iPad|iOS/.test(userAgent)
      ? "iOS"
      : /Mac OS X|Macintosh/.test(userAgent)
        ? "macOS"
        : /Windows/.test(userAgent)
          ? "Windows"
          : /CrOS/.test(userAgent)
            ? "ChromeOS"
            : /Linux/.test(userAgent)
              ? "Linux"
              : "";
  return system ? `${browser} on ${system}` : browser;
}
