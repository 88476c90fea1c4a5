import { afterEach, describe, expect, it } from "vitest";
import { counted, gettext, interpolate, languageTag, ngettext, pluralFunction, supportedLanguage, useCatalogue } from "../src/i18n";

describe("translations", () => {
  afterEach(() => useCatalogue("en", null));

  it("reads Django's JSON catalogue, English without one", () => {
    expect(gettext("Your hand")).toBe("Your hand");
    useCatalogue("es", { catalog: { "Your hand": "Tu mano", "%(count)s card": ["%(count)s carta", "%(count)s cartas"] }, plural: "(n != 1)" });
    expect(gettext("Your hand")).toBe("Tu mano");
    expect(gettext("Not translated")).toBe("Not translated");
    expect(counted(ngettext("%(count)s card", "%(count)s cards", 1), 1)).toBe("1 carta");
    expect(counted(ngettext("%(count)s card", "%(count)s cards", 0), 0)).toBe("0 cartas");
    expect(ngettext("%(count)s cat", "%(count)s cats", 2)).toBe("%(count)s cats");
  });

  it("uses the catalogue's plural rule: Brazilian Portuguese says 0 in the singular", () => {
    useCatalogue("pt-br", { catalog: { "%(count)s card": ["%(count)s carta", "%(count)s cartas"] }, plural: "(n > 1)" });
    expect(counted(ngettext("%(count)s card", "%(count)s cards", 0), 0)).toBe("0 carta");
    expect(counted(ngettext("%(count)s card", "%(count)s cards", 2), 2)).toBe("2 cartas");
  });

  it("parses plural expressions without evaluating code", () => {
    const three = pluralFunction("n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2");
    expect([1, 2, 0, 1000000, 2000001].map(three)).toEqual([0, 2, 2, 1, 2]);
    const slavic = pluralFunction("(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2)");
    expect([1, 3, 5, 11, 21, 22].map(slavic)).toEqual([0, 1, 2, 2, 0, 1]);
    // Anything else is refused and falls back to n != 1.
    const refused = pluralFunction("alert(1)");
    expect([1, 2].map(refused)).toEqual([0, 1]);
  });

  it("fills named and positional placeholders", () => {
    expect(interpolate("%(a)s and %(b)s, %(missing)s", { a: 1, b: "two" })).toBe("1 and two, %(missing)s");
    expect(interpolate("%s of %s", ["King", "hearts"])).toBe("King of hearts");
  });

  it("knows the five languages by a browser's tags", () => {
    expect(["es-AR", "pt", "pt-PT", "de_CH", "it", "en-GB", "fr", null].map(supportedLanguage)).toEqual(["es", "pt-br", "pt-br", "de", "it", "en", null, null]);
    expect(languageTag("pt-br")).toBe("pt-BR");
  });
});
