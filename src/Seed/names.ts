/**
 * Word lists for the demo catalogue: Malaysian names in Malay, Chinese (romanised
 * and in characters), Tamil (romanised and in Tamil script) and English, honorifics, band and
 * label words, song-title words, genres and credit roles.
 *
 * The names are made up from common parts; any match with a real person is a coincidence of
 * common names. Lists are de-duplicated after folding (case and Latin diacritics), so two
 * entries of one list never collide as namesakes by accident.
 */

/** Lower case and no Latin diacritics: the part of `fold_name` that matters inside a list. */
export const foldWord = (word: string): string =>
  word
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()

const unique = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const out: Array<string> = []
  for (const word of words) {
    const key = foldWord(word)
    if (!seen.has(key)) {
      seen.add(key)
      out.push(word)
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// People

/** Malay given names, male. Some with diacritics, apostrophes or hyphens on purpose. */
export const MALAY_MALE = unique([
  "Ahmad", "Muhammad", "Mohd", "Abdul", "Aziz", "Razak", "Hafiz", "Faizal", "Rahim", "Zainal",
  "Jamal", "Kamal", "Syafiq", "Amir", "Azlan", "Hakim", "Rizal", "Shahrul", "Ismail", "Yusof",
  "Hussein", "Hamzah", "Iskandar", "Khairul", "Nazri", "Rosli", "Sudirman", "Jais", "Ramli", "Saleem",
  "Ariff", "Azmi", "Badrul", "Daud", "Ehsan", "Fadzil", "Ghazali", "Haris", "Idrís", "Jalil",
  "Khalid", "Latif", "Mansor", "Nordin", "Omar", "Putra", "Qayyum", "Rashid", "Salleh", "Taufik",
  "Umar", "Wan", "Yazid", "Zulkifli", "Abidín", "Ézé", "Ku'ain", "Nik", "Shukor", "Ridhuan",
  "Faris", "Hisham", "Izwan", "Lokman", "Mazlan", "Nabil", "Rafiq", "Syukri", "Zamri", "Adi-Putra",
  "Aiman", "Danial", "Haikal", "Irfan", "Luqman", "Megat", "Naim", "Roslan", "Shamsul", "Zaidi"
])

/** Malay given names, female. */
export const MALAY_FEMALE = unique([
  "Siti", "Nurhaliza", "Aishah", "Noraniza", "Ziana", "Zaleha", "Sharifah", "Aida", "Liza", "Anita",
  "Fauziah", "Azlina", "Rohana", "Salmah", "Saloma", "Normah", "Hetty", "Ramlah", "Noor", "Nora",
  "Nurul", "Farah", "Fatimah", "Zarina", "Yasmin", "Misha", "Ella", "Jamilah", "Rahimah", "Suraya",
  "Haliza", "Izzati", "Ayu", "Dayang", "Intan", "Camelia", "Ernie", "Nadia", "Hanis", "Liyana",
  "Marlia", "Nabila", "Puteri", "Rozita", "Sheila", "Tiara", "Umi", "Wardina", "Zahirah", "Adibah",
  "Balqis", "Dahlia", "Erma", "Fazura", "Halimah", "Inas", "Julia", "Khadijah", "Maizura", "Nor-Azura",
  "Raihana", "Sofea", "Syazwani", "Zuraidah", "Amálina", "Noraini", "Rosnah", "Zubaidah", "Aleesya", "Qistina"
])

/** Patronymic-style second names (never in the given-name lists). */
export const MALAY_SECOND = unique([
  "Jamaluddin", "Kamaruddin", "Nasaruddin", "Shamsuddin", "Baharuddin", "Zainuddin", "Hisyamuddin",
  "Fakhruddin", "Alauddin", "Jalaluddin", "Salahuddin", "Nizamuddin", "Badaruddin", "Tajuddin",
  "Khairuddin", "Saifuddin", "Azharuddin", "Borhanuddin", "Mohiuddin", "Sharifuddin", "Ramlee",
  "Hassan", "Osman", "Sulaiman", "Ibrahim"
])

/** Single stage names. */
export const MONONYMS = unique([
  "Aishah", "Ziana", "Awie", "Ella", "Misha", "Jinbara", "Amy", "Hattan", "Zizi", "Nash",
  "Ajai", "Ezad", "Dayang", "Liza", "Jaclyn", "Zee", "Najwa", "Ernie", "Aizat", "Shila",
  "Alyah", "Bunga", "Noh", "Zain", "Ezlynn", "Wany", "Kaka", "Nubhan", "Aril", "Stacy",
  "Akim", "Ayda", "Haqiem", "Marsha", "Aina", "Elyana", "Ziela", "Eja", "Sufian", "Dafi",
  "Ameera", "Syamel", "Irfan", "Ifa", "Janna", "Tomok", "Anuar", "Ziqri", "Hazama", "Faizal",
  "Rossa", "Erra", "Ogy", "Spider", "Ukay", "Jalil", "Nora", "Jamal", "Suhaimi", "Sasha",
  "Adira", "Arjuna", "Bahar", "Cici", "Dewi", "Éliza", "Fynn", "Gambit", "Halim", "Indah",
  "Juwita", "Kamelia", "Lan", "Mila", "Nadhira", "Ombak", "Pyanhabib", "Qalif", "Rabbani", "Salina",
  "Tasha", "Uji", "Vince", "Wawa", "Xandra", "Yus", "Zahid", "Abby", "Bella", "Carlo",
  "Dina", "Ezzah", "Fiq", "Gina", "Hana", "Ika", "Jac", "Kiki", "Lola", "Meor",
  "Nina", "Opie", "Piee", "Rina", "Saiful", "Tiha", "Uqasha", "Vanya", "Wirda", "Yazmin",
  "Zura", "Ramzi", "Shiha", "Hafiz", "Adibah", "Noryn", "Sarimah", "Jue", "Mas", "Nurin",
  "Khai", "Lufya", "Miera", "Nikki", "Ozlynn", "Putri", "Ruby", "Syaz", "Tajul", "Wani",
  "Yaya", "Zaiton", "Amira", "Bob", "Chacha", "Elfira", "Farish", "Gee", "Hael",
  "D'Nash", "A'ziz", "Maya-Karin", "Zoë", "Renée", "Noël", "Aliff", "Ayie", "Black", "Cheryl"
])

/** Chinese surnames, romanised (Hokkien, Cantonese, Hakka and Mandarin spellings). */
export const CHINESE_SURNAMES = unique([
  "Lee", "Tan", "Lim", "Wong", "Ng", "Chong", "Chan", "Teo", "Goh", "Ong",
  "Yap", "Khoo", "Loh", "Low", "Lau", "Chin", "Cheah", "Foo", "Liew", "Koh",
  "Soo", "Yeoh", "Kok", "Hew", "Leong", "Choo", "Tham", "Liow", "Phang", "Kwan",
  "Siew", "Chua", "Teh", "Lai", "Ho", "Wee", "Seow", "Pang", "Au", "Yong",
  "Gan", "Hoo", "Kam", "Lum", "Mok", "Neoh", "Oon", "Quek", "Sim", "Toh"
])

/** Romanised Chinese given-name syllables. */
export const CHINESE_SYLLABLES = unique([
  "Chong", "Wei", "Mei", "Ling", "Hui", "Jun", "Kah", "Seng", "Boon", "Kit",
  "Yee", "Siew", "Li", "Ying", "Kar", "Wai", "Chee", "Keong", "Hong", "Ming",
  "Xin", "Yi", "Zhi", "Jia", "Hao", "Fong", "Sheng", "Kuan", "Tze", "Ann",
  "Khai", "Yan", "Pei", "Shan", "Wen", "Zi", "Xuan", "Yu", "Qian", "Han",
  "Jin", "Teck", "Hock", "Heng", "Choon", "Poh", "Keat", "Leng", "Sun", "Fei",
  "Kian", "Lok", "Mun", "Nam", "Onn", "Peng", "Soon", "Tat", "Voon", "Yew"
])

/** Chinese surnames and given-name characters for names written in characters. */
export const CHINESE_CHAR_SURNAMES = unique([
  "周", "李", "王", "张", "陈", "林", "黄", "吴", "刘", "蔡",
  "杨", "郑", "许", "何", "梁", "罗", "谢", "曾", "邓", "彭",
  "萧", "叶", "朱", "苏", "卢", "胡", "温", "郭", "潘", "方"
])
export const CHINESE_CHAR_GIVEN = unique([
  "杰", "伦", "美", "玲", "伟", "强", "慧", "婷", "欣", "怡",
  "家", "豪", "俊", "明", "雅", "思", "晨", "宇", "诗", "涵",
  "嘉", "颖", "志", "文", "晓", "丽", "国", "华", "子", "萱",
  "凯", "琪", "佳", "敏", "亦", "辰", "心", "然", "安", "乐"
])

/** Tamil given names, romanised. */
export const TAMIL_GIVEN = unique([
  "Ravi", "Karthik", "Arun", "Suresh", "Ramesh", "Ganesh", "Vijay", "Siva", "Murali", "Prakash",
  "Rajesh", "Anand", "Bala", "Devi", "Kavitha", "Priya", "Lakshmi", "Shanthi", "Meena", "Geetha",
  "Malathi", "Yogeswaran", "Thinesh", "Vasanth", "Selva", "Mugen", "Santesh", "Nandini", "Saraswathy", "Jegan",
  "Kishore", "Logan", "Uthaya", "Vikneswaran", "Jeeva", "Harish", "Indran", "Darshini", "Kalai", "Tharani",
  "Ilango", "Mahendran", "Pavithra", "Rathi", "Sangeetha"
])

/** Tamil second names (father's names or family-style names), romanised. */
export const TAMIL_SECOND = unique([
  "Raja", "Kumar", "Nathan", "Pillai", "Rajan", "Krishnan", "Subramaniam", "Muniandy", "Arumugam", "Ramasamy",
  "Govindasamy", "Letchumanan", "Maniam", "Sivalingam", "Chandran", "Perumal", "Murugan", "Velu", "Kannan", "Sundram",
  "Rahman", "Ponnusamy", "Thevar", "Nair", "Menon", "Gopal", "Sinnathamby", "Veerappan", "Annamalai", "Rasiah",
  "Kandasamy", "Palaniappan", "Shanmugam", "Thangaraj", "Vellu", "Devaraj", "Naidu", "Retnam", "Selvaraj", "Jeyakumar"
])

/** Initials that precede Tamil names ("S. Ravichandran"). */
export const TAMIL_INITIALS = ["S.", "K.", "M.", "R.", "A.", "V.", "P.", "T.", "G.", "N.", "C.", "D.", "J."] as const

/** Tamil names in Tamil script. */
export const TAMIL_SCRIPT_GIVEN = unique([
  "ரவி", "கார்த்திக்", "அருண்", "சுரேஷ்", "கணேஷ்", "விஜய்", "சிவா", "முரளி", "பிரகாஷ்", "ஆனந்த்",
  "பாலா", "தேவி", "கவிதா", "பிரியா", "லட்சுமி", "மீனா", "கீதா", "செல்வா", "நந்தினி", "இளங்கோ",
  "ஜீவா", "கலை", "மகேந்திரன்", "பவித்ரா", "சங்கீதா", "ராஜேஷ்", "ரமேஷ்", "விக்னேஷ்", "தினேஷ்", "ஹரிஷ்",
  "சந்தோஷ்", "அனிதா", "சரண்யா", "கலா", "ராதா"
])
export const TAMIL_SCRIPT_SECOND = unique([
  "ரஹ்மான்", "ராஜா", "நாதன்", "கிருஷ்ணன்", "முருகன்", "கண்ணன்", "சந்திரன்", "பெருமாள்", "வேலு", "ராஜன்",
  "குமார்", "கோபால்", "சுப்பிரமணியம்", "ஆறுமுகம்", "சண்முகம்"
])
export const TAMIL_SCRIPT_INITIALS = ["எஸ்.", "கே.", "எம்.", "ஆர்.", "ஏ.", "வி.", "பி.", "டி."] as const

/** English (and Eurasian / Portuguese-Malaccan) first names. */
export const ENGLISH_FIRST = unique([
  "Jason", "Michael", "David", "Daniel", "Sarah", "Jessica", "Amanda", "Ryan", "Kevin", "Joanne",
  "Melissa", "Adrian", "Alan", "Juliet", "Joe", "Marc", "Ben", "Alicia", "Nicole", "Audrey",
  "Sean", "Colin", "Ian", "Gary", "Peter", "Paul", "Shawn", "Tania", "Elaine", "Stephanie",
  "Victoria", "Gavin", "Dennis", "Ray", "Chris", "Nathan", "Oliver", "Jean-Luc", "Mary-Anne", "Chloé",
  "André", "José", "Eugénie", "Rachel", "Simon", "Gregory", "Hannah", "Francis", "Bernard", "Cecilia",
  "Leonard", "Monica", "Patrick", "Rebecca", "Terence", "Vanessa", "Wendy", "Xavier", "Yvonne", "Zachary"
])
export const ENGLISH_LAST = unique([
  "Lo", "D'Cruz", "Fernandez", "De Souza", "Pereira", "Gomez", "Rozario", "Carvalho", "Smith", "Thompson",
  "O'Brien", "Nunis", "Pestana", "Young", "Martin", "Rodrigues", "Dass", "Morais", "Sequerah", "Theseira",
  "Read", "Clarke", "Mathews", "Jeremiah", "Lazaroo", "Monteiro", "Sta Maria", "De Silva", "Shepherdson", "Ferrão",
  "Araújo", "Müller", "Brontë", "Hendricks", "Aeria", "Scully", "Overee", "Paglar", "Minjoot", "Shelley",
  "Baptist", "Cordeiro", "Danker", "Estrop", "Goonting", "Hogan", "Jansen", "Kerk", "Lourdes", "Marbeck",
  "Nonis", "Oliveiro", "Pinto", "Quintal", "Rego", "Sta Anna", "Tessensohn", "Vanderstraaten", "Woodford", "Zuzarte"
])

/** Honorifics kept in `artists.prefix_title`. */
export const HONORIFICS_MALE = ["Dato'", "Datuk", "Dato' Sri", "Tan Sri", "Dr.", "Datuk Seri"] as const
export const HONORIFICS_FEMALE = ["Datin", "Dato'", "Datuk", "Puan Sri", "Dr.", "Datin Paduka"] as const

// ---------------------------------------------------------------------------------------------
// Groups

export const MALAY_NOUNS = unique([
  "Angin", "Bayu", "Gelombang", "Pelangi", "Bintang", "Rimba", "Samudera", "Lautan", "Kilat", "Halilintar",
  "Badai", "Senja", "Fajar", "Embun", "Kabus", "Purnama", "Gerhana", "Merpati", "Rajawali", "Helang",
  "Harimau", "Kancil", "Teratai", "Cempaka", "Seroja", "Kenanga", "Permata", "Mutiara", "Suria", "Bulan",
  "Hujan", "Ombak", "Gunung", "Sungai", "Pantai", "Pulau", "Belantara", "Lembah", "Kota", "Istana",
  "Pahlawan", "Lagenda", "Sahabat", "Perantau", "Musafir", "Kembara", "Pendekar", "Hulubalang", "Serindit", "Tekukur",
  "Dendang", "Irama", "Gema", "Lentera", "Pelita", "Sutera", "Tembaga", "Besi", "Api", "Batu",
  "Awan", "Guruh", "Salju", "Tasik", "Puncak", "Kristal", "Nadi", "Sukma", "Wira", "Dewa"
])
export const MALAY_ADJECTIVES = unique([
  "Biru", "Hitam", "Merah", "Putih", "Emas", "Perak", "Malam", "Timur", "Barat",
  "Utara", "Selatan", "Liar", "Sakti", "Abadi", "Gemilang", "Sepi", "Rindu", "Muda", "Lama",
  "Baru", "Kelabu", "Jingga", "Ungu", "Hijau", "Gila", "Berani", "Merdeka", "Suci", "Kencana",
  "Lestari", "Permai", "Indah", "Megah", "Sunyi", "Damai", "Purba", "Sejati", "Teguh"
])
export const ENGLISH_BAND_ADJECTIVES = unique([
  "Blue", "Midnight", "Electric", "Silent", "Wild", "Golden", "Broken", "Lonely", "Neon", "Velvet",
  "Crimson", "Paper", "Rolling", "Young", "Savage", "Tropical", "Lost", "Hollow", "Northern", "Southern",
  "Secret", "Last", "Crystal", "Iron", "Little", "Lucky", "Restless", "Sonic", "Analog", "Monsoon",
  "Runaway", "Urban", "Vintage", "Wandering", "Burning", "Frozen", "Hidden", "Modern", "Stereo", "Distant",
  "Quiet", "Radio", "Rusty", "Smoky", "Sleepy", "Starlit", "Sunday", "Twin", "Wicked", "Humid"
])
export const ENGLISH_BAND_NOUNS = unique([
  "Echoes", "Lights", "Rebels", "Wolves", "Strangers", "Parade", "Collective", "Brothers", "Sisters", "Kings",
  "Monkeys", "Orchestra", "Machines", "Satellites", "Dreamers", "Ghosts", "Riders", "Poets", "Pilots", "Saints",
  "Tigers", "Hornbills", "Rangers", "Wanderers", "Lovers", "Soldiers", "Vandals", "Prophets", "Drifters", "Sailors",
  "Mirrors", "Shadows", "Engines", "Comets", "Anchors", "Owls", "Foxes", "Hounds", "Ravens", "Sparrows",
  "Cowboys", "Daydreams", "Fireflies", "Kites", "Lanterns", "Orchids", "Rockets", "Sirens", "Storms", "Tides"
])
export const BAND_SUFFIXES = ["Band", "Boys", "Girls", "Project", "Trio", "Kumpulan", "Ensemble", "Crew"] as const
export const CHINESE_BAND_CHARS = unique([
  "星", "光", "南", "风", "夜", "海", "月", "雨", "云", "火",
  "山", "花", "梦", "天", "青", "白", "红", "蓝", "金", "银",
  "春", "秋", "雪", "林", "湖", "城", "岛", "河", "虹", "雷",
  "鹰", "狼", "猫", "鱼", "马", "鹿", "龙", "凤", "竹", "石"
])
export const CHINESE_BAND_SUFFIXES = ["乐队", "乐团", "合唱团", "组合"] as const
export const TAMIL_BAND_WORDS = unique([
  "இசை", "நிலா", "மழை", "தென்றல்", "அலை", "வானம்", "தீ", "கடல்", "மலர்", "சூரியன்"
])
export const TAMIL_BAND_SUFFIX = "இசைக்குழு"

/** Editor-supplied disambiguators for namesakes. */
export const DISAMBIGUATORS = [
  "penyanyi dari Kelantan", "penyanyi dari Johor", "penyanyi dari Sabah", "penyanyi dari Sarawak",
  "band rock dari Ipoh", "band indie dari Kuala Lumpur", "komposer, 1980-an", "komposer, 1990-an",
  "rapper from KL", "pemain gitar sesi", "singer-songwriter from Penang", "penyanyi nasyid",
  "penyanyi dangdut", "Mandopop singer from Johor Bahru", "Tamil playback singer", "jazz pianist",
  "pelakon dan penyanyi", "finalis Akademi Fantasia", "juara Bintang RTM", "penerbit muzik",
  "DJ from Kota Kinabalu", "pemuzik tradisional", "busker from Melaka", "session drummer"
] as const

// ---------------------------------------------------------------------------------------------
// Labels

export const LABEL_NAMES = [
  "Suria Records", "Rusa Music", "Nusantara Records", "Gema Musik", "Bintang Records", "Pelangi Sound",
  "Harmoni Entertainment", "Selatan Records", "Irama Timur", "Teratai Music", "KL Sound Works", "Tropika Records",
  "Lantai Tiga Records", "Warisan Musik", "Kilau Records", "Gelombang Records", "Monsoon Music Malaysia",
  "Hornbill Records", "Merbok Music", "Kopitiam Records", "星光唱片", "南风音乐", "இசை ரெக்கார்ட்ஸ்",
  "Café Música", "D'Tempo Records", "Bunga-Raya Music", "Jalan Ampang Records", "Tanjung Sound",
  "Petaling Street Music", "Sungai Records"
] as const
export const LABEL_PREFIXES = unique([
  "Suria", "Rusa", "Nusantara", "Gema", "Bintang", "Pelangi", "Harmoni", "Selatan", "Irama", "Teratai",
  "Tropika", "Warisan", "Kilau", "Gelombang", "Monsoon", "Hornbill", "Merbok", "Kopitiam", "Tanjung", "Sungai",
  "Angkasa", "Bayu", "Cahaya", "Delima", "Embun", "Fajar", "Gemilang", "Halia", "Impian", "Jentayu",
  "Kenari", "Lembayung", "Mahligai", "Nirwana", "Orkid", "Pesona", "Rentak", "Sinar", "Tiara", "Ufuk",
  "Vista", "Wawasan", "Zaman", "Alunan", "Bayangan", "Citra", "Dendang", "Elegan", "Fantasia", "Gita",
  "Hikayat", "Indera", "Juara", "Kasturi", "Lagu", "Melodi", "Nada", "Ombak", "Puspa", "Rampai"
])
export const LABEL_MIDDLES = ["", "Asia", "Malaysia", "Nusantara", "Borneo", "Timur", "Utara", "Digital", "Global", "Kreatif"] as const
export const LABEL_SUFFIXES = [
  "Records", "Music", "Musik", "Entertainment", "Productions", "Studios", "Sound", "Media", "Rekod", "Sdn. Bhd."
] as const

// ---------------------------------------------------------------------------------------------
// Titles

export const TITLE_NOUNS_MS = unique([
  "Cinta", "Kasih", "Rindu", "Sayang", "Hati", "Jiwa", "Mimpi", "Bulan", "Bintang", "Hujan",
  "Senja", "Pagi", "Malam", "Laut", "Pantai", "Kampung", "Kota", "Jalan", "Setia", "Janji",
  "Air Mata", "Gelora", "Impian", "Harapan", "Kenangan", "Sepi", "Derita", "Bahagia", "Rahsia", "Syurga",
  "Dunia", "Angin", "Kekasih", "Puteri", "Pahlawan", "Merdeka", "Ibu", "Ayah", "Sahabat", "Teman",
  "Pelangi", "Bayangan", "Memori", "Cahaya", "Doa", "Rasa", "Nafas", "Langit", "Embun", "Ombak",
  "Lagu", "Irama", "Dendam", "Luka", "Pilu", "Sinar", "Rantau", "Perantau", "Sampan", "Bunga"
])
export const TITLE_ADJECTIVES_MS = unique([
  "Terakhir", "Pertama", "Abadi", "Sejati", "Terlarang", "Yang Hilang", "Yang Terluka", "Selamanya", "Sepi", "Suci",
  "Berdua", "Seorang", "Terindah", "Terpendam", "Membara", "Merindu", "Di Hati", "Ku", "Mu", "Kita",
  "Malam Ini", "Semalam", "Esok", "Hari Ini", "Tanpa Nama", "Tak Bertepi", "Bertasbih", "Rahsia", "Di Jendela", "Biru"
])
export const TITLE_PLACES = unique([
  "Kuala Lumpur", "Melaka", "Pulau Pinang", "Ipoh", "Kota Bharu", "Kuching", "Kota Kinabalu", "Johor Bahru",
  "Terengganu", "Langkawi", "Cameron Highlands", "Seremban", "Alor Setar", "Kuantan", "Putrajaya", "Tanjung Malim"
])
export const TITLE_VERBS_MS = unique([
  "Pergi", "Kembali", "Menangis", "Menunggu", "Percaya", "Lupakan", "Pulang", "Bertahan", "Berlari", "Terbang",
  "Mengalah", "Berubah", "Bermimpi", "Menanti", "Memilih", "Berjanji", "Pergi Jua", "Lepaskan", "Dengar", "Diam"
])
export const TITLE_WORDS_EN = unique([
  "Midnight", "Drive", "Neon", "Hearts", "Monsoon", "Rain", "Summer", "Highway", "Home", "Fire",
  "Gold", "Stars", "Ocean", "City", "Lights", "Dreams", "Love", "Runaway", "Shadow", "Paradise",
  "Echo", "Wildflower", "Satellite", "Forever", "Tonight", "Horizon", "Gravity", "Silence", "Thunder", "Velvet",
  "Heartbeat", "Daylight", "Memories", "Sunrise", "Paper", "Kites", "Coffee", "Traffic", "Rooftop", "Island"
])
export const TITLE_PHRASES_EN = [
  "I'll Be There", "Don't Let Go", "Stay With Me", "Take Me Home", "All I Need", "One More Night",
  "Can't Stop", "You & I", "Hold On", "Let It Be Us", "Say Goodbye", "Come Back to Me", "Right Here",
  "Never Again", "Over the Moon", "Before the Rain", "Walk Away", "Only You", "It's Alright", "Fly Away"
] as const
export const TITLE_SPECIAL = [
  "Café Senja", "Señorita Malam", "Fiancé", "Déjà Vu", "Rindu-Rinduan", "Kau'lah Segalanya", "Dato' Rock",
  "Kuala Lumpur-Singapura", "Naïve", "Crème Brûlée", "Ke-Sayang-An", "Jom Heboh!", "Raya Lagi?", "100% Cinta",
  "Cinta (Versi 2)", "Hati & Jiwa", "Ya Rabbi", "Salam Aidilfitri", "Selamat Hari Raya", "Tahun Baru Cina",
  "Deepavali Ceria", "Merdeka! Merdeka!", "Ó Mãe", "Bésame"
] as const
export const TITLE_CHINESE_CHARS = unique([
  "月", "亮", "代", "表", "我", "的", "心", "爱", "你", "梦",
  "想", "雨", "夜", "星", "空", "海", "风", "花", "城", "市",
  "回", "家", "路", "远", "方", "时", "光", "永", "远", "情",
  "歌", "思", "念", "春", "天", "南", "洋", "故", "乡", "灯"
])
export const TITLE_TAMIL_WORDS = unique([
  "காதல்", "நிலா", "மழை", "இரவு", "கனவு", "பாடல்", "நெஞ்சம்", "வானம்", "உயிரே", "அன்பே",
  "தென்றல்", "கண்ணே", "பூவே", "என்", "உன்", "நீ", "நான்", "ஒரு", "தாய்", "மண்"
])
export const TITLE_TAMIL_ROMANISED = unique([
  "Kadhal", "Nila", "Mazhai", "Iravu", "Kanavu", "Paadal", "Nenjam", "Vaanam", "Uyire", "Anbe",
  "Thendral", "Kanne", "Poove", "En", "Un", "Nee", "Naan", "Oru", "Thaai", "Mann"
])
export const LYRIC_LINES = [
  "Di bawah sinar bulan, ku menanti dirimu", "Angin malam berbisik namamu", "Walau jauh di mata, dekat di hati",
  "Kau pergi tanpa pesan", "Ku simpan rindu ini", "Hujan turun lagi di kota ini", "Setia ku hanya untukmu",
  "We drove all night down the coastal road", "Your voice is the only song I know", "Lights of the city fading out",
  "Tunggu aku di hujung jalan", "Ombak memukul pantai", "Hati ini milikmu selamanya", "Biar masa menentukan",
  "Jangan kau lupa janji kita", "I'll find my way back home", "Senyummu penawar duka", "Langit biru jadi saksi"
] as const
export const NOTE_SENTENCES = [
  "Recorded live at Dewan Filharmonik Petronas.", "Lagu tema drama bersiri di TV3.", "Theme song of a 1990s Malay film.",
  "Dirakam semula pada tahun 2010.", "Originally released on cassette.", "Menang Anugerah Juara Lagu.",
  "Featured in a Hari Raya advertisement.", "Versi asal dinyanyikan dalam bahasa Indonesia.",
  "Written during the 1997 haze.", "Single pertama daripada album sulung.", "Banned from radio for a year.",
  "Popular at weddings across the peninsula.", "Lirik oleh penyair terkenal.", "Recorded in a single take."
] as const

export const LIST_TITLES = [
  "Lagu Raya Terbaik", "Best of 90s Rock Kapak", "Top Dangdut", "Balada Malam Minggu", "Road Trip Pantai Timur",
  "Indie KL Essentials", "Mandopop Malaysia", "Tamil Pop Hits", "Nasyid Pilihan", "Irama Malaysia Klasik",
  "Lagu Patriotik", "Rainy Day in KL", "Study Session", "Kenangan Era 80-an", "Duet Terbaik", "Hip Hop Lokal",
  "Lagu Tema Drama", "Akustik Petang", "Jazz di Kopitiam", "Santai Hujung Minggu", "Cover Terbaik",
  "Deepavali Celebration", "Tahun Baru Cina Playlist", "Merdeka Anthems", "Anugerah Juara Lagu Winners",
  "Album Wajib Dengar", "Classic Albums", "Debut Albums", "EPs of the Year", "Singles Club"
] as const

// ---------------------------------------------------------------------------------------------
// Genres and roles

export interface GenreSeed {
  readonly slug: string
  readonly title: string
  readonly description: string
  readonly color: string
  /** Relative popularity when songs pick genres. */
  readonly weight: number
  readonly culture: "any" | "malay" | "chinese" | "tamil" | "english"
}

export const GENRES: ReadonlyArray<GenreSeed> = [
  { slug: "pop", title: "Pop", description: "Mainstream Malaysian pop, from radio ballads to dance singles.", color: "#e84393", weight: 20, culture: "any" },
  { slug: "rock", title: "Rock", description: "Guitar-driven rock, including the rock kapak wave of the 1980s and 1990s.", color: "#d63031", weight: 12, culture: "any" },
  { slug: "dangdut", title: "Dangdut", description: "Rhythmic dance music with tabla-style drums and flute.", color: "#fd9644", weight: 6, culture: "malay" },
  { slug: "irama-malaysia", title: "Irama Malaysia", description: "Modern songs built on traditional Malay rhythms.", color: "#20bf6b", weight: 5, culture: "malay" },
  { slug: "nasyid", title: "Nasyid", description: "Islamic devotional songs, often a cappella or with percussion.", color: "#0fb9b1", weight: 4, culture: "malay" },
  { slug: "hip-hop", title: "Hip Hop", description: "Rap and hip hop in Malay, English, Tamil and Chinese.", color: "#4b6584", weight: 6, culture: "any" },
  { slug: "indie", title: "Indie", description: "Independent bands and bedroom producers.", color: "#a55eea", weight: 8, culture: "any" },
  { slug: "balada", title: "Balada", description: "Slow, emotional love songs.", color: "#fc5c65", weight: 9, culture: "malay" },
  { slug: "keroncong", title: "Keroncong", description: "Ukulele-and-strings music with Portuguese roots.", color: "#b8860b", weight: 2, culture: "malay" },
  { slug: "ghazal", title: "Ghazal", description: "Johor ghazal: poetry sung over harmonium, tabla and gambus.", color: "#8e44ad", weight: 2, culture: "malay" },
  { slug: "asli", title: "Asli", description: "Traditional Malay songs in the slow asli rhythm.", color: "#16a085", weight: 2, culture: "malay" },
  { slug: "joget", title: "Joget", description: "Lively dance music with Portuguese-Malaccan influences.", color: "#f7b731", weight: 2, culture: "malay" },
  { slug: "zapin", title: "Zapin", description: "Dance music with Arabic roots, led by gambus and marwas.", color: "#cd6133", weight: 2, culture: "malay" },
  { slug: "inang", title: "Inang", description: "Medium-tempo traditional dance songs.", color: "#218c74", weight: 1, culture: "malay" },
  { slug: "rnb", title: "R&B", description: "Rhythm and blues, soul and neo-soul.", color: "#6c5ce7", weight: 6, culture: "any" },
  { slug: "edm", title: "EDM", description: "Electronic dance music: house, EDM and festival anthems.", color: "#00cec9", weight: 4, culture: "any" },
  { slug: "metal", title: "Metal", description: "Heavy, thrash, black and death metal.", color: "#2d3436", weight: 3, culture: "any" },
  { slug: "punk", title: "Punk", description: "Punk rock and hardcore from the local scene.", color: "#e17055", weight: 2, culture: "any" },
  { slug: "jazz", title: "Jazz", description: "Jazz standards, fusion and local jazz.", color: "#0984e3", weight: 2, culture: "any" },
  { slug: "folk", title: "Folk", description: "Acoustic folk and singer-songwriters.", color: "#badc58", weight: 3, culture: "any" },
  { slug: "tamil-pop", title: "Tamil Pop", description: "Malaysian Tamil pop and film-style songs.", color: "#f0932b", weight: 6, culture: "tamil" },
  { slug: "mandopop", title: "Mandopop", description: "Mandarin pop by Malaysian Chinese artists.", color: "#eb4d4b", weight: 6, culture: "chinese" },
  { slug: "cantopop", title: "Cantopop", description: "Cantonese pop.", color: "#ff7979", weight: 3, culture: "chinese" },
  { slug: "sufi", title: "Sufi", description: "Sufi devotional and qawwali-influenced music.", color: "#6ab04c", weight: 1, culture: "malay" },
  { slug: "gospel", title: "Gospel", description: "Christian worship and gospel, including Sabah and Sarawak choirs.", color: "#f9ca24", weight: 1, culture: "english" },
  { slug: "soundtrack", title: "Soundtrack", description: "Songs and scores written for films and television dramas.", color: "#535c68", weight: 3, culture: "any" },
  { slug: "reggae", title: "Reggae", description: "Reggae and ska.", color: "#27ae60", weight: 1, culture: "any" },
  { slug: "blues", title: "Blues", description: "Blues and blues rock.", color: "#30336b", weight: 1, culture: "english" },
  { slug: "classical", title: "Classical", description: "Orchestral and chamber music by Malaysian composers.", color: "#95afc0", weight: 1, culture: "any" },
  { slug: "children", title: "Children's Music", description: "Songs for children: nursery rhymes and school songs.", color: "#7ed6df", weight: 1, culture: "any" },
  { slug: "patriotic", title: "Patriotic", description: "Lagu patriotik: songs for Merdeka and Malaysia Day.", color: "#c0392b", weight: 1, culture: "malay" },
  { slug: "bhangra", title: "Bhangra", description: "Punjabi bhangra from Malaysia's Sikh community.", color: "#e67e22", weight: 1, culture: "any" }
]

export type RoleTag = "performer" | "writer" | "producer" | "other"

export interface RoleSeed {
  readonly slug: string
  readonly title: string
  readonly tag: RoleTag
}

/** Credit roles. Ids follow this order (1-based); sort_order is the same number. */
export const ROLES: ReadonlyArray<RoleSeed> = [
  { slug: "vocals", title: "Vocals", tag: "performer" },
  { slug: "featured-artist", title: "Featured Artist", tag: "performer" },
  { slug: "composer", title: "Composer", tag: "writer" },
  { slug: "lyricist", title: "Lyricist", tag: "writer" },
  { slug: "arranger", title: "Arranger", tag: "producer" },
  { slug: "producer", title: "Producer", tag: "producer" },
  { slug: "guitar", title: "Guitar", tag: "other" },
  { slug: "bass", title: "Bass", tag: "other" },
  { slug: "drums", title: "Drums", tag: "other" },
  { slug: "keyboards", title: "Keyboards", tag: "other" },
  { slug: "backing-vocals", title: "Backing Vocals", tag: "other" },
  { slug: "mixing-engineer", title: "Mixing Engineer", tag: "other" }
]

/** Role ids by slug, matching the order of ROLES. */
export const ROLE_ID = {
  vocals: 1,
  featured: 2,
  composer: 3,
  lyricist: 4,
  arranger: 5,
  producer: 6,
  instrumentFirst: 7,
  instrumentLast: 12
} as const

/** Words for member handles that are not derived from a name. */
export const HANDLE_WORDS = unique([
  "peminat", "muzik", "lagu", "irama", "rockkapak", "budak", "kaki", "dengar", "playlist", "radio",
  "kasetlama", "vinyl", "gitar", "dram", "melodi", "nada", "rentak", "karaoke", "busker", "konsert",
  "fan", "music", "tunes", "beats", "songbird", "lepak", "mamak", "kopi", "teh", "tarik"
])
