/* labels.c: octavo's own words per language (labels.h). The table is the
 * only place they are spelled; the writers ask for them by id. */
#include "labels.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *lang;
  const char *l[LABEL_COUNT];
  const char *months[12];
  const char *date_fmt; /* printf: day, month name, year */
  bool serial_comma;    /* "A, B, and C" */
} Language;

static const Language languages[] = {
    {"en",
     {"Contents", "By", "and", "Cover", "Title page", "Start of content", "Back to reference",
      "Links", "Landmarks", "Print pages", "Untitled section", "Colophon", "Source", "Identifier",
      "Built", "Typefaces", "Made with", "page %d of %d", "Dated"},
     {"January", "February", "March", "April", "May", "June", "July", "August", "September",
      "October", "November", "December"},
     "%d %s %d",
     true},
    {"fr",
     {"Table des matières", "Par", "et", "Couverture", "Page de titre", "Début du texte",
      "Retour à l’appel", "Liens", "Repères", "Pages imprimées", "Section sans titre", "Colophon",
      "Source", "Identifiant", "Date de fabrication", "Polices", "Réalisé avec", "page %d sur %d", "Daté du"},
     {"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
      "octobre", "novembre", "décembre"},
     "%d %s %d",
     false},
    {"de",
     {"Inhalt", "Von", "und", "Umschlag", "Titelseite", "Textbeginn", "Zurück zum Verweis", "Links",
      "Orientierungspunkte", "Druckseiten", "Abschnitt ohne Titel", "Kolophon", "Quelle", "Kennung",
      "Erstellt am", "Schriften", "Erstellt mit", "Seite %d von %d", "Datiert"},
     {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
      "November", "Dezember"},
     "%d. %s %d",
     false},
    {"es",
     {"Índice", "Por", "y", "Cubierta", "Portada", "Inicio del texto", "Volver a la referencia",
      "Enlaces", "Puntos de referencia", "Páginas impresas", "Sección sin título", "Colofón",
      "Fuente", "Identificador", "Fecha de producción", "Tipografías", "Hecho con",
      "página %d de %d", "Fechado el"},
     {"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
      "octubre", "noviembre", "diciembre"},
     "%d de %s de %d",
     false},
    {"it",
     {"Indice", "Di", "e", "Copertina", "Frontespizio", "Inizio del testo", "Torna al richiamo",
      "Collegamenti", "Punti di riferimento", "Pagine a stampa", "Sezione senza titolo", "Colophon",
      "Fonte", "Identificativo", "Data di produzione", "Caratteri", "Realizzato con",
      "pagina %d di %d", "Datato"},
     {"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
      "ottobre", "novembre", "dicembre"},
     "%d %s %d",
     false},
    {"pt",
     {"Sumário", "Por", "e", "Capa", "Folha de rosto", "Início do texto", "Voltar à referência",
      "Ligações", "Marcos", "Páginas impressas", "Seção sem título", "Colofão", "Fonte",
      "Identificador", "Data de produção", "Tipos de letra", "Feito com", "página %d de %d", "Datado de"},
     {"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro",
      "outubro", "novembro", "dezembro"},
     "%d de %s de %d",
     false},
    {"nl",
     {"Inhoud", "Door", "en", "Omslag", "Titelpagina", "Begin van de tekst",
      "Terug naar de verwijzing", "Koppelingen", "Oriëntatiepunten", "Gedrukte pagina’s",
      "Naamloze sectie", "Colofon", "Bron", "Identificatie", "Gemaakt op", "Lettertypen",
      "Gemaakt met", "pagina %d van %d", "Gedateerd"},
     {"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september",
      "oktober", "november", "december"},
     "%d %s %d",
     false},
    {"ar",
     {"المحتويات", "تأليف", "و", "الغلاف", "صفحة العنوان", "بداية المحتوى", "العودة إلى الإحالة",
      "الروابط", "المعالم", "الصفحات المطبوعة", "قسم بلا عنوان", "بيانات النشر", "المصدر", "المعرّف",
      "تاريخ الإنشاء", "الخطوط", "صُنع باستخدام", "صفحة %d من %d"},
     {"يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر",
      "نوفمبر", "ديسمبر"},
     "%d %s %d",
     false},
    {"bn",
     {"সূচিপত্র", "লেখক", "ও", "প্রচ্ছদ", "শিরোনাম পৃষ্ঠা", "বিষয়বস্তুর শুরু", "উল্লেখে ফিরে যান",
      "লিঙ্ক", "ল্যান্ডমার্ক", "মুদ্রিত পৃষ্ঠা", "শিরোনামহীন অংশ", "প্রকাশনা তথ্য", "উৎস", "শনাক্তকারী",
      "তৈরির তারিখ", "টাইপফেস", "তৈরি করা হয়েছে", "পৃষ্ঠা %d / %d"},
     {"জানুয়ারী", "ফেব্রুয়ারী", "মার্চ", "এপ্রিল", "মে", "জুন", "জুলাই", "আগস্ট", "সেপ্টেম্বর", "অক্টোবর",
      "নভেম্বর", "ডিসেম্বর"},
     "%d %s %d",
     false},
    {"el",
     {"Περιεχόμενα", "Από", "και", "Εξώφυλλο", "Σελίδα τίτλου", "Αρχή περιεχομένου",
      "Επιστροφή στην παραπομπή", "Σύνδεσμοι", "Ορόσημα", "Έντυπες σελίδες", "Ενότητα χωρίς τίτλο",
      "Κολοφώνας", "Πηγή", "Αναγνωριστικό", "Δημιουργήθηκε", "Γραμματοσειρές", "Φτιαγμένο με",
      "σελίδα %d από %d"},
     {"Ιανουαρίου", "Φεβρουαρίου", "Μαρτίου", "Απριλίου", "Μαΐου", "Ιουνίου", "Ιουλίου",
      "Αυγούστου", "Σεπτεμβρίου", "Οκτωβρίου", "Νοεμβρίου", "Δεκεμβρίου"},
     "%d %s %d",
     false},
    {"fa",
     {"فهرست مطالب", "نوشتهٔ", "و", "جلد", "صفحهٔ عنوان", "آغاز متن", "بازگشت به ارجاع", "پیوندها",
      "نشانه‌ها", "صفحه‌های چاپی", "بخش بی‌عنوان", "شناسنامهٔ کتاب", "منبع", "شناسه", "تاریخ ساخت",
      "قلم‌ها", "ساخته‌شده با", "صفحهٔ %d از %d"},
     {"ژانویه", "فوریه", "مارس", "آوریل", "مه", "ژوئن", "ژوئیه", "اوت", "سپتامبر", "اکتبر", "نوامبر",
      "دسامبر"},
     "%d %s %d",
     false},
    {"he",
     {"תוכן העניינים", "מאת", "ו", "כריכה", "עמוד שער", "תחילת התוכן", "חזרה להפניה", "קישורים",
      "ציוני דרך", "עמודים מודפסים", "פרק ללא כותרת", "קולופון", "מקור", "מזהה", "נבנה",
      "גופנים", "נוצר באמצעות", "עמוד %d מתוך %d"},
     {"בינואר", "בפברואר", "במרץ", "באפריל", "במאי", "ביוני", "ביולי", "באוגוסט", "בספטמבר",
      "באוקטובר", "בנובמבר", "בדצמבר"},
     "%d %s %d",
     false},
    {"hi",
     {"विषय सूची", "लेखक", "और", "आवरण", "शीर्षक पृष्ठ", "सामग्री का आरंभ", "संदर्भ पर वापस",
      "लिंक", "लैंडमार्क", "मुद्रित पृष्ठ", "बिना शीर्षक का खंड", "प्रकाशन विवरण", "स्रोत", "पहचानकर्ता",
      "निर्माण तिथि", "टाइपफ़ेस", "निर्मित", "पृष्ठ %d / %d"},
     {"जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त", "सितंबर", "अक्तूबर",
      "नवंबर", "दिसंबर"},
     "%d %s %d",
     false},
    {"ja",
     {"目次", "%s 著", "と", "表紙", "扉", "本文の始まり", "参照元に戻る", "リンク", "ランドマーク",
      "印刷ページ", "無題の節", "奥付", "出典", "識別子", "作成日", "書体", "作成ツール",
      "%d / %d ページ"},
     {"1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"},
     "%3$d年%2$s%1$d日",
     false},
    {"ko",
     {"목차", "%s 지음", "및", "표지", "속표지", "본문 시작", "참조로 돌아가기", "링크", "랜드마크",
      "인쇄 페이지", "제목 없는 절", "판권", "출처", "식별자", "만든 날짜", "글꼴", "만든 도구",
      "%d / %d 페이지"},
     {"1월", "2월", "3월", "4월", "5월", "6월", "7월", "8월", "9월", "10월", "11월", "12월"},
     "%3$d년 %2$s %1$d일",
     false},
    {"ru",
     {"Содержание", "Автор:", "и", "Обложка", "Титульный лист", "Начало текста",
      "Назад к ссылке", "Ссылки", "Ориентиры", "Печатные страницы", "Раздел без названия",
      "Выходные данные", "Источник", "Идентификатор", "Дата сборки", "Шрифты", "Сделано с помощью",
      "страница %d из %d"},
     {"января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября",
      "октября", "ноября", "декабря"},
     "%d %s %d г.",
     false},
    {"th",
     {"สารบัญ", "โดย", "และ", "ปก", "หน้าชื่อเรื่อง", "เริ่มเนื้อหา", "กลับไปที่การอ้างอิง", "ลิงก์",
      "จุดสังเกต", "หน้าฉบับพิมพ์", "ส่วนที่ไม่มีชื่อ", "ข้อมูลการพิมพ์", "ที่มา", "ตัวระบุ",
      "วันที่สร้าง", "แบบอักษร", "สร้างด้วย", "หน้า %d จาก %d"},
     {"มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน", "กรกฎาคม", "สิงหาคม",
      "กันยายน", "ตุลาคม", "พฤศจิกายน", "ธันวาคม"},
     "%d %s %d",
     false},
    {"tr",
     {"İçindekiler", "Yazan:", "ve", "Kapak", "Başlık sayfası", "İçeriğin başlangıcı",
      "Göndermeye dön", "Bağlantılar", "Yer işaretleri", "Basılı sayfalar", "Başlıksız bölüm",
      "Künye", "Kaynak", "Tanımlayıcı", "Oluşturulma", "Yazı tipleri", "Şununla yapıldı:",
      "sayfa %d / %d"},
     {"Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim",
      "Kasım", "Aralık"},
     "%d %s %d",
     false},
    {"uk",
     {"Зміст", "Автор:", "і", "Обкладинка", "Титульна сторінка", "Початок тексту",
      "Назад до посилання", "Посилання", "Орієнтири", "Друковані сторінки", "Розділ без назви",
      "Вихідні дані", "Джерело", "Ідентифікатор", "Дата збирання", "Шрифти", "Зроблено за допомогою",
      "сторінка %d з %d"},
     {"січня", "лютого", "березня", "квітня", "травня", "червня", "липня", "серпня", "вересня",
      "жовтня", "листопада", "грудня"},
     "%d %s %d р.",
     false},
    {"vi",
     {"Mục lục", "Tác giả", "và", "Bìa", "Trang tên sách", "Bắt đầu nội dung", "Quay lại chú thích",
      "Liên kết", "Mốc định hướng", "Trang in", "Mục không tên", "Thông tin xuất bản", "Nguồn",
      "Mã định danh", "Ngày tạo", "Phông chữ", "Được tạo bằng", "trang %d / %d"},
     {"tháng 1", "tháng 2", "tháng 3", "tháng 4", "tháng 5", "tháng 6", "tháng 7", "tháng 8",
      "tháng 9", "tháng 10", "tháng 11", "tháng 12"},
     "%d %s năm %d",
     false},
    {"zh",
     {"目录", "%s 著", "和", "封面", "书名页", "正文开始", "返回引用处", "链接", "地标", "印刷页码",
      "无标题小节", "版权页", "来源", "标识符", "生成日期", "字体", "制作工具", "第 %d 页，共 %d 页"},
     {"1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"},
     "%3$d年%2$s%1$d日",
     false},
    {"zh-Hant",
     {"目錄", "%s 著", "和", "封面", "書名頁", "正文開始", "返回引用處", "連結", "地標", "印刷頁碼",
      "無標題小節", "版權頁", "來源", "識別碼", "產生日期", "字型", "製作工具", "第 %d 頁，共 %d 頁"},
     {"1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"},
     "%3$d年%2$s%1$d日",
     false},
};

/* The table's entry for lang, or NULL: its language subtag, and for
 * Chinese its script (zh-Hant, or a region that writes it: TW, HK, MO). */
static const Language *find_language(const char *lang)
{
  size_t n = 0;
  while (lang && lang[n] && lang[n] != '-' && lang[n] != '_')
    n++;
  if (n == 2 && g_ascii_strncasecmp(lang, "zh", 2) == 0 && lang[2]) {
    const char *t = lang + 3;
    if (g_ascii_strncasecmp(t, "Hant", 4) == 0 || g_ascii_strncasecmp(t, "TW", 2) == 0 ||
        g_ascii_strncasecmp(t, "HK", 2) == 0 || g_ascii_strncasecmp(t, "MO", 2) == 0)
      lang = "zh-Hant", n = 7;
  }
  for (size_t i = 0; i < G_N_ELEMENTS(languages); i++)
    if (n == strlen(languages[i].lang) && g_ascii_strncasecmp(lang, languages[i].lang, n) == 0)
      return &languages[i];
  return NULL;
}

static const Language *language(const char *lang)
{
  const Language *l = find_language(lang);
  return l ? l : &languages[0];
}

bool labels_known(const char *lang)
{
  return find_language(lang) != NULL;
}

const char *labels_get(const char *lang, LabelId id)
{
  const char *l = language(lang)->l[id];
  return l ? l : languages[0].l[id]; /* a label a language lacks: the English */
}

char *labels_join(const char *lang, const GPtrArray *names)
{
  const Language *l = language(lang);
  GString *s = g_string_new(NULL);
  for (guint i = 0; names && i < names->len; i++) {
    if (i && i + 1 == names->len)
      g_string_append_printf(s, "%s%s ", names->len > 2 && l->serial_comma ? ", " : " ",
                             l->l[LABEL_AND]);
    else if (i)
      g_string_append(s, ", ");
    g_string_append(s, names->pdata[i]);
  }
  return g_string_free(s, FALSE);
}

char *labels_byline(const char *lang, const GPtrArray *authors)
{
  if (!authors || !authors->len)
    return NULL;
  char *names = labels_join(lang, authors);
  /* "By %s" where the names come first ("%s 著") */
  const char *by = labels_get(lang, LABEL_BY), *at = strstr(by, "%s");
  char *s = at ? g_strdup_printf("%.*s%s%s", (int)(at - by), by, names, at + 2)
               : g_strdup_printf("%s %s", by, names);
  g_free(names);
  return s;
}

char *labels_date(const char *lang, const char *date)
{
  if (!date)
    return NULL;
  int y, m, d;
  if (sscanf(date, "%4d-%2d-%2d", &y, &m, &d) == 3 && y > 0 && m >= 1 && m <= 12 && d >= 1 &&
      g_date_valid_dmy((GDateDay)d, (GDateMonth)m, (GDateYear)y)) {
    const Language *l = language(lang);
    return g_strdup_printf(l->date_fmt, d, l->months[m - 1], y);
  }
  return g_strdup(date);
}

bool labels_rtl(const char *lang)
{
  static const char *const rtl[] = {"ar", "arc", "ckb", "dv", "fa", "he", "iw",
                                    "ks", "ps",  "sd",  "syr", "ug", "ur", "yi"};
  if (!lang)
    return false;
  const char *script = strchr(lang, '-');
  if (script && strlen(script) >= 5 && g_ascii_isalpha(script[1]) && g_ascii_isalpha(script[4]) &&
      (script[5] == '\0' || script[5] == '-'))
    return g_ascii_strncasecmp(script + 1, "Arab", 4) == 0 ||
           g_ascii_strncasecmp(script + 1, "Hebr", 4) == 0 ||
           g_ascii_strncasecmp(script + 1, "Syrc", 4) == 0 ||
           g_ascii_strncasecmp(script + 1, "Thaa", 4) == 0 ||
           g_ascii_strncasecmp(script + 1, "Nkoo", 4) == 0;
  size_t n = strcspn(lang, "-_");
  for (size_t i = 0; i < G_N_ELEMENTS(rtl); i++)
    if (strlen(rtl[i]) == n && g_ascii_strncasecmp(lang, rtl[i], n) == 0)
      return true;
  return false;
}

char *labels_page_of(const char *lang, int page, int pages)
{
  /* the table's formats are literals with two %d each */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  return g_strdup_printf(labels_get(lang, LABEL_PAGE_OF), page, pages);
#pragma GCC diagnostic pop
}
